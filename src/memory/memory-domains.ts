import { FlagpostError } from "../errors.js";
import type {
  DomainRepository,
  EventsFor,
  PageRequest,
  SendingDomainChanges,
  SendingDomainRecord,
} from "../storage/index.js";
import { type MemoryWebhookState, pageOf } from "./memory-webhook-state.js";

/** Sending domains in memory, by id. Each method runs without awaiting, so it is atomic here. */
export class MemoryDomainRepository implements DomainRepository {
  readonly #byId = new Map<string, SendingDomainRecord>();
  readonly #webhooks: MemoryWebhookState;

  constructor(webhooks: MemoryWebhookState) {
    this.#webhooks = webhooks;
  }

  async insertDomain(domain: SendingDomainRecord): Promise<void> {
    if (this.#byId.has(domain.id) || this.#named(domain.name))
      throw new FlagpostError("conflict", `The domain "${domain.name}" already exists`);
    this.#byId.set(domain.id, structuredClone(domain));
  }

  async getDomain(id: string): Promise<SendingDomainRecord | undefined> {
    const found = this.#byId.get(id);
    return found && structuredClone(found);
  }

  async getDomainByName(name: string): Promise<SendingDomainRecord | undefined> {
    const found = this.#named(name);
    return found && structuredClone(found);
  }

  async listDomains(page: PageRequest): Promise<SendingDomainRecord[]> {
    return pageOf([...this.#byId.values()], (d) => d.id, page);
  }

  async updateDomain(
    id: string,
    changes: SendingDomainChanges,
    events?: EventsFor<SendingDomainRecord>,
  ): Promise<SendingDomainRecord | undefined> {
    const domain = this.#byId.get(id);
    if (!domain) return undefined;
    Object.assign(domain, structuredClone(withoutUndefined(changes)));
    this.#webhooks.recordDomainEvents(events?.(structuredClone(domain)));
    return structuredClone(domain);
  }

  async deleteDomain(id: string): Promise<boolean> {
    return this.#byId.delete(id);
  }

  async listDomainsToRecheck(checkedBefore: string, limit: number): Promise<SendingDomainRecord[]> {
    return [...this.#byId.values()]
      .filter((d) => d.status !== "not_started" && d.checkedAt !== undefined && d.checkedAt < checkedBefore)
      .sort((a, b) => (a.checkedAt! < b.checkedAt! ? -1 : a.checkedAt! > b.checkedAt! ? 1 : 0))
      .slice(0, limit)
      .map((d) => structuredClone(d));
  }

  async pauseDomain(
    id: string,
    at: string,
    events?: EventsFor<SendingDomainRecord>,
  ): Promise<SendingDomainRecord | undefined> {
    const domain = this.#byId.get(id);
    if (!domain || domain.pausedAt !== undefined) return undefined;
    Object.assign(domain, { pausedAt: at, updatedAt: at });
    this.#webhooks.recordDomainEvents(events?.(structuredClone(domain)));
    return structuredClone(domain);
  }

  async resumeDomain(id: string, at: string): Promise<SendingDomainRecord | undefined> {
    const domain = this.#byId.get(id);
    if (!domain) return undefined;
    delete domain.pausedAt;
    domain.updatedAt = at;
    return structuredClone(domain);
  }

  /** Whether mail from this domain waits (the outbox's claim filter). */
  isPaused(name: string | undefined): boolean {
    return name !== undefined && this.#named(name)?.pausedAt !== undefined;
  }

  #named(name: string): SendingDomainRecord | undefined {
    for (const domain of this.#byId.values()) if (domain.name === name) return domain;
    return undefined;
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
