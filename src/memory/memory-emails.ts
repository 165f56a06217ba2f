import { FlagpostError } from "../errors.js";
import type {
  ClaimEmailOptions,
  ClaimedEmail,
  EmailClaimRequest,
  RecordedOutcomesAndClaim,
  DomainReputationCounts,
  ReputationMark,
  DomainEvent,
  EmailEvent,
  EmailListEntry,
  EmailReschedule,
  PageRequest,
  EmailOutcomeWrite,
  EmailRecord,
  OutboxDepth,
  EmailRepository,
  EmailRetry,
  EmailTransition,
  IdempotencyCompletion,
  NewEmailEvent,
} from "../storage/index.js";
import type { MemoryIdempotencyRepository } from "./memory-idempotency.js";
import { headlineOf } from "../storage/email-headline.js";
import { claimDueRecords } from "./memory-email-claims.js";
import { sendingDomainOf } from "../domains/reputation-window.js";
import { ReputationMarks } from "./memory-reputation.js";
import { type MemoryWebhookState, pageOf } from "./memory-webhook-state.js";

interface Entry {
  record: EmailRecord;
  events: EmailEvent[];
}

function fresh(record: EmailRecord): EmailRecord {
  return structuredClone(record);
}

/**
 * The outbox in memory. Each method runs to completion without awaiting, so claims and
 * transitions are atomic within this process; nothing is shared with other processes and
 * nothing survives a restart (an accepted email is lost with the process: use SQLite or a server
 * database for mail you cannot lose).
 */
export class MemoryEmailRepository implements EmailRepository {
  readonly #emails = new Map<string, Entry>();
  readonly #idempotency: MemoryIdempotencyRepository;
  readonly #webhooks: MemoryWebhookState;
  /** Whether mail from a sending domain waits (paused by the reputation guard). */
  readonly #paused: (domain: string | undefined) => boolean;
  readonly #marks = new ReputationMarks();

  constructor(
    idempotency: MemoryIdempotencyRepository,
    webhooks: MemoryWebhookState,
    paused: (domain: string | undefined) => boolean = () => false,
  ) {
    this.#idempotency = idempotency;
    this.#webhooks = webhooks;
    this.#paused = paused;
  }

  async markEmailReputation(id: string, mark: ReputationMark): Promise<void> {
    if (this.#emails.has(id)) this.#marks.mark(id, mark);
  }

  async domainReputation(domain: string, window: number): Promise<DomainReputationCounts> {
    return this.#marks.count(
      [...this.#emails.values()].map((e) => e.record),
      domain,
      window,
    );
  }

  async insertEmails(
    emails: EmailRecord[],
    completion?: IdempotencyCompletion,
    events?: readonly DomainEvent[],
  ): Promise<void> {
    const ids = new Set<string>();
    for (const email of emails) {
      if (this.#emails.has(email.id) || ids.has(email.id))
        throw new FlagpostError("conflict", `An email with id "${email.id}" already exists`);
      ids.add(email.id);
    }
    for (const email of emails) {
      const record = fresh(email);
      const type = email.scheduledAt === undefined ? "queued" : "scheduled";
      const event: EmailEvent = { emailId: email.id, seq: 1, type, at: email.createdAt };
      this.#emails.set(email.id, { record, events: [event] });
    }
    if (completion) this.#idempotency.completeNow(completion);
    this.#webhooks.recordDomainEvents(events);
  }

  async getEmail(id: string): Promise<EmailRecord | undefined> {
    const entry = this.#emails.get(id);
    return entry && fresh(entry.record);
  }

  async listEmails(page: PageRequest): Promise<EmailListEntry[]> {
    return pageOf(
      [...this.#emails.values()].map(({ record }) => headlineOf(record)),
      (e) => e.id,
      page,
    );
  }

  async rescheduleEmail(id: string, change: EmailReschedule): Promise<EmailRecord | undefined> {
    const entry = this.#emails.get(id);
    const record = entry?.record;
    if (!entry || !record || record.status !== "queued" || record.scheduledAt === undefined) return undefined;
    if (record.leaseUntil !== undefined && record.leaseUntil > change.unleasedAt) return undefined;
    record.scheduledAt = change.scheduledAt;
    record.nextAttemptAt = change.scheduledAt;
    delete record.leaseOwner;
    delete record.leaseUntil;
    this.#append(entry, change.event);
    this.#webhooks.recordDomainEvents(change.events);
    return fresh(record);
  }

  async findEmailByProviderMessageId(providerMessageId: string): Promise<EmailRecord | undefined> {
    for (const { record } of this.#emails.values())
      if (record.providerMessageId === providerMessageId) return fresh(record);
    return undefined;
  }

  async claimDueEmails(
    now: string,
    limit: number,
    leaseMs: number,
    owner: string,
    options: ClaimEmailOptions = {},
  ): Promise<ClaimedEmail[]> {
    return this.#claim({ now, limit, leaseMs, owner, ...options });
  }

  #claim(claim: EmailClaimRequest): ClaimedEmail[] {
    const records = [...this.#emails.values()].map((e) => e.record);
    return claimDueRecords(records, claim, (r) => this.#paused(sendingDomainOf(r.content)));
  }

  async renewEmailLeases(ids: readonly string[], owner: string, leaseUntil: string): Promise<string[]> {
    const renewed: string[] = [];
    for (const id of new Set(ids)) {
      const record = this.#emails.get(id)?.record;
      if (record?.status !== "queued" || record.leaseOwner !== owner) continue;
      record.leaseUntil = leaseUntil;
      renewed.push(id);
    }
    return renewed;
  }

  async outboxDepth(now: string): Promise<OutboxDepth> {
    const depth: OutboxDepth = { due: 0, scheduled: 0, held: 0 };
    for (const { record } of this.#emails.values()) {
      if (record.status !== "queued") continue;
      if (this.#paused(sendingDomainOf(record.content))) depth.held += 1;
      else if (record.nextAttemptAt > now) depth.scheduled += 1;
      else {
        depth.due += 1;
        if (depth.oldestDueAt === undefined || record.nextAttemptAt < depth.oldestDueAt)
          depth.oldestDueAt = record.nextAttemptAt;
      }
    }
    return depth;
  }

  async listEmailLeaseOwners(now: string): Promise<string[]> {
    const owners = new Set<string>();
    for (const { record } of this.#emails.values()) {
      if (
        record.status === "queued" &&
        record.leaseOwner !== undefined &&
        record.leaseUntil !== undefined &&
        record.leaseUntil > now
      )
        owners.add(record.leaseOwner);
    }
    return [...owners];
  }

  async releaseEmailLeases(owners: readonly string[]): Promise<number> {
    const dead = new Set(owners);
    let released = 0;
    for (const { record } of this.#emails.values()) {
      if (record.status !== "queued" || record.leaseOwner === undefined || !dead.has(record.leaseOwner)) continue;
      delete record.leaseOwner;
      delete record.leaseUntil;
      released += 1;
    }
    return released;
  }

  async transitionEmail(id: string, transition: EmailTransition): Promise<EmailRecord | undefined> {
    return this.#transition(id, transition);
  }

  async scheduleRetry(id: string, retry: EmailRetry): Promise<EmailRecord | undefined> {
    return this.#retry(id, retry);
  }

  #transition(id: string, transition: EmailTransition): EmailRecord | undefined {
    const entry = this.#emails.get(id);
    if (!entry || !transition.from.includes(entry.record.status)) return undefined;
    if (transition.leaseOwner !== undefined && entry.record.leaseOwner !== transition.leaseOwner) return undefined;
    const { leaseUntil } = entry.record;
    if (transition.unleasedAt !== undefined && leaseUntil !== undefined && leaseUntil > transition.unleasedAt)
      return undefined;
    const record = entry.record;
    record.status = transition.to;
    if (transition.sentAt !== undefined) record.sentAt ??= transition.sentAt;
    if (transition.deliveredAt !== undefined) record.deliveredAt ??= transition.deliveredAt;
    if (transition.failureReason !== undefined) record.failureReason = transition.failureReason;
    if (transition.providerMessageId !== undefined) record.providerMessageId = transition.providerMessageId;
    delete record.leaseOwner;
    delete record.leaseUntil;
    const lastEvent = entry.record.lastEvent;
    this.#append(entry, transition.event);
    if (transition.keepLastEvent) {
      if (lastEvent === undefined) delete entry.record.lastEvent;
      else entry.record.lastEvent = lastEvent;
    }
    this.#webhooks.recordDomainEvents(transition.events);
    return fresh(record);
  }

  #retry(id: string, retry: EmailRetry): EmailRecord | undefined {
    const entry = this.#emails.get(id);
    if (!entry || entry.record.status !== "queued" || entry.record.leaseOwner !== retry.leaseOwner) return undefined;
    const record = entry.record;
    record.nextAttemptAt = retry.nextAttemptAt;
    record.lastError = retry.lastError;
    delete record.leaseOwner;
    delete record.leaseUntil;
    this.#append(entry, retry.event);
    this.#webhooks.recordDomainEvents(retry.events);
    return fresh(record);
  }

  async recordOutcomes(outcomes: readonly EmailOutcomeWrite[]): Promise<boolean[]> {
    return this.#record(outcomes);
  }

  async recordOutcomesAndClaim(
    outcomes: readonly EmailOutcomeWrite[],
    claim: EmailClaimRequest,
  ): Promise<RecordedOutcomesAndClaim> {
    // All or nothing, as one write: a claim that cannot be made is refused before any outcome applies.
    if (!Number.isFinite(Date.parse(claim.now)))
      throw new FlagpostError("validation_error", `"now" must be an ISO-8601 time, got ${JSON.stringify(claim.now)}`);
    const applied = this.#record(outcomes);
    return { applied, claimed: this.#claim(claim) };
  }

  /** The outcomes, with no await between them: they apply together, as one write would. */
  #record(outcomes: readonly EmailOutcomeWrite[]): boolean[] {
    return outcomes.map(
      (o) => ("transition" in o ? this.#transition(o.id, o.transition) : this.#retry(o.id, o.retry)) !== undefined,
    );
  }

  async listEmailEvents(id: string): Promise<EmailEvent[]> {
    return structuredClone(this.#emails.get(id)?.events ?? []);
  }

  /** Every stored email with its events, in no particular order: for the activity counts (read only). */
  *scan(): Iterable<Readonly<Entry>> {
    yield* this.#emails.values();
  }

  #append(entry: Entry, event: NewEmailEvent): void {
    entry.record.lastEvent = event.type;
    entry.events.push(structuredClone({ emailId: entry.record.id, seq: entry.events.length + 1, ...event }));
  }
}
