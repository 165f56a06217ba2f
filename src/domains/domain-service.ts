import type { Clock } from "../ports/clock.js";
import { notFound } from "../errors.js";
import { uuidv7 } from "../ids.js";
import { type ListView, type PageQuery, readPage } from "../pagination.js";
import type {
  DomainEvent,
  EpochMs,
  SendingDomainChanges,
  SendingDomainRecord,
  Storage,
} from "../ports/storage/index.js";
import { parseInput } from "../validation.js";
import { generateDkimKey } from "./dkim-key.js";
import { recordsFor } from "./dns-records.js";
import { type DnsResolver, verifyRecords } from "./dns-verification.js";
import { changeDomain } from "./domain-writes.js";
import { sealPrivateKey } from "./key-sealing.js";
import type { ReputationGuard } from "./reputation-guard.js";
import {
  type CreateDomainInput,
  createDomainSchema,
  type ResumeDomainInput,
  resumeDomainSchema,
  type UpdateDomainInput,
  updateDomainSchema,
} from "./schema.js";
import { type DomainSummaryView, type DomainView, domainView, summaryView } from "./views.js";

export interface DomainServiceDeps {
  storage: Storage;
  clock: Clock;
  resolver: DnsResolver;
  /** The key DKIM private keys are sealed with; undefined stores them unencrypted (no secret configured). */
  sealingKey: () => Promise<Buffer | undefined>;
  /** Host the return-path MX points at (flagpost's inbound MTA). */
  mxHost: string;
  /** SPF mechanisms authorising the sending hosts. */
  spf: string;
  /** Told when a domain's status changed or it was removed (the signing-key cache forgets). */
  onChange?: () => void;
  /** The reputation guard: the rates GET shows, and what resume clears. */
  reputation: ReputationGuard;
}

/**
 * `fp.domains`: sending domains in the resend SDK's shapes (create, list, get, update, verify,
 * remove) and `recheck()`, the periodic DNS check. A status change found by a check is a
 * `domain.updated` webhook event, stored with the change.
 */
export class DomainService {
  readonly #deps: DomainServiceDeps;

  constructor(deps: DomainServiceDeps) {
    this.#deps = deps;
  }

  /** Makes the DKIM key and answers the records to publish; status `not_started`. */
  async create(input: CreateDomainInput): Promise<DomainView> {
    const parsed = parseInput(createDomainSchema, input);
    const { storage, clock } = this.#deps;
    const key = await generateDkimKey();
    const now = clock.now();
    // flagpost<n>, n the creation second: a domain removed and added again gets a new selector,
    // so the old key's record left in DNS cannot be mistaken for the new one.
    const selector = `flagpost${Math.floor(now / 1000)}`;
    const returnPath = parsed.custom_return_path ?? "bounces";
    const domain: SendingDomainRecord = {
      id: uuidv7(now),
      name: parsed.name,
      region: parsed.region,
      status: "not_started",
      selector,
      privateKey: sealPrivateKey(key.privateKeyPem, await this.#deps.sealingKey()),
      returnPath,
      records: recordsFor({
        domain: parsed.name,
        selector,
        publicKeyBase64: key.publicKeyBase64,
        returnPath,
        bounceMailHost: this.#deps.mxHost,
        spfMechanisms: this.#deps.spf,
      }),
      openTracking: parsed.open_tracking ?? false,
      clickTracking: parsed.click_tracking ?? false,
      tls: parsed.tls ?? "opportunistic",
      createdAt: now,
      updatedAt: now,
    };
    await storage.domains.insertDomain(domain);
    return this.#view(domain);
  }

  async list(query: PageQuery = {}): Promise<ListView<DomainSummaryView>> {
    return readPage(query, (page) => this.#deps.storage.domains.listDomains(page), summaryView);
  }

  async get(id: string): Promise<DomainView> {
    return this.#view(await this.#domain(id));
  }

  /**
   * Clears the reputation guard's pause: claims take the domain's held mail again, oldest first.
   * Resuming a domain that is not paused changes nothing. Answers the domain as GET does.
   */
  async resume(id: string, input: ResumeDomainInput = {}): Promise<DomainView> {
    parseInput(resumeDomainSchema, input);
    const at = this.#now();
    const stored = await changeDomain(this.#deps.storage, id, ({ pausedAt: _, ...domain }) => ({
      ...domain,
      updatedAt: at,
    }));
    if (!stored) throw notFound("Domain", id);
    return this.#view(stored);
  }

  async #view(domain: SendingDomainRecord): Promise<DomainView> {
    const { reputation } = this.#deps;
    return domainView(domain, await reputation.rates(domain), reputation.settings);
  }

  /** Tracking and TLS settings (Resend's PATCH). */
  async update(id: string, input: UpdateDomainInput): Promise<{ object: "domain"; id: string }> {
    const parsed = parseInput(updateDomainSchema, input);
    const changes: SendingDomainChanges = { updatedAt: this.#now() };
    if (parsed.open_tracking !== undefined) changes.openTracking = parsed.open_tracking;
    if (parsed.click_tracking !== undefined) changes.clickTracking = parsed.click_tracking;
    if (parsed.tls !== undefined) changes.tls = parsed.tls;
    if (!(await changeDomain(this.#deps.storage, id, (domain) => ({ ...domain, ...changes }))))
      throw notFound("Domain", id);
    return { object: "domain", id };
  }

  /**
   * Looks the records up now and stores what DNS says: `verified`, `failed`, or `pending` while
   * DNS cannot answer. Answers once the check is stored, so a GET right after sees its result.
   */
  async verify(id: string): Promise<{ object: "domain"; id: string }> {
    const now = this.#now();
    const domain = await changeDomain(this.#deps.storage, id, (d) =>
      d.status === "not_started" ? { ...d, status: "pending", updatedAt: now } : null,
    );
    if (!domain) throw notFound("Domain", id);
    await this.#check(domain);
    return { object: "domain", id };
  }

  async remove(id: string): Promise<{ object: "domain"; id: string; deleted: true }> {
    if (!(await this.#deps.storage.domains.deleteDomain(id))) throw notFound("Domain", id);
    this.#deps.onChange?.();
    return { object: "domain", id, deleted: true };
  }

  /** Checks again up to `limit` domains last checked before `olderThanMs` ago; how many were checked. */
  async recheck(olderThanMs: number, limit = 50): Promise<number> {
    const before = this.#deps.clock.now() - olderThanMs;
    const due = await this.#deps.storage.domains.listDomainsToRecheck(before, limit);
    for (const domain of due) await this.#check(domain);
    return due.length;
  }

  async #check(domain: SendingDomainRecord): Promise<void> {
    const result = await verifyRecords(domain.name, domain.records, this.#deps.resolver);
    const now = this.#now();
    let changed = false;
    // Under the row lock: the status this check moves from is the one stored now, not the one it read.
    await changeDomain(
      this.#deps.storage,
      domain.id,
      (before) => {
        // DNS that cannot answer says nothing new: a verified domain stays verified until DNS says otherwise.
        const status = result.status === "pending" && before.status !== "pending" ? before.status : result.status;
        changed = status !== before.status;
        return { ...before, status, records: result.records, checkedAt: now, updatedAt: now };
      },
      (stored, before) => (changed ? [this.#updatedEvent(stored, before.status, now)] : []),
    );
    if (changed) this.#deps.onChange?.();
  }

  #updatedEvent(stored: SendingDomainRecord, previous: string, at: EpochMs): DomainEvent {
    const view = summaryView(stored);
    return {
      id: uuidv7(this.#deps.clock.now()),
      type: "domain.updated",
      createdAt: at,
      data: { ...view, previous_status: previous, records: stored.records },
    };
  }

  async #domain(id: string): Promise<SendingDomainRecord> {
    const domain = await this.#deps.storage.domains.getDomain(id);
    if (!domain) throw notFound("Domain", id);
    return domain;
  }

  #now(): EpochMs {
    return this.#deps.clock.now();
  }
}
