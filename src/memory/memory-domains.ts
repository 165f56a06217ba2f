import { FlagpostError } from "../errors.js";
import type { DomainRepository, DomainRowStore, PageRequest, SendingDomainRecord } from "../storage/index.js";
import { pageOf } from "./memory-webhook-state.js";

/** Sending domains in memory, by id. Changes arrive from a committing transaction (memory-transaction.ts). */
export class MemoryDomainRepository implements DomainRepository {
  /** The stored rows by id; handed out as copies only. */
  readonly rows = new Map<string, SendingDomainRecord>();

  async insertDomain(domain: SendingDomainRecord): Promise<void> {
    if (this.rows.has(domain.id) || this.#named(domain.name))
      throw new FlagpostError("conflict", `The domain "${domain.name}" already exists`);
    this.rows.set(domain.id, structuredClone(domain));
  }

  async getDomain(id: string): Promise<SendingDomainRecord | undefined> {
    const found = this.rows.get(id);
    return found && structuredClone(found);
  }

  async getDomainByName(name: string): Promise<SendingDomainRecord | undefined> {
    const found = this.#named(name);
    return found && structuredClone(found);
  }

  async listDomains(page: PageRequest): Promise<SendingDomainRecord[]> {
    return pageOf([...this.rows.values()], (d) => d.id, page);
  }

  async deleteDomain(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  async listDomainsToRecheck(checkedBefore: string, limit: number): Promise<SendingDomainRecord[]> {
    return [...this.rows.values()]
      .filter((d) => d.status !== "not_started" && d.checkedAt !== undefined && d.checkedAt < checkedBefore)
      .sort((a, b) => (a.checkedAt! < b.checkedAt! ? -1 : a.checkedAt! > b.checkedAt! ? 1 : 0))
      .slice(0, limit)
      .map((d) => structuredClone(d));
  }

  /** Whether mail from this domain waits (the outbox's claim filter). */
  isPaused(name: string | undefined): boolean {
    return name !== undefined && this.#named(name)?.pausedAt !== undefined;
  }

  /**
   * Applies a transaction's replaced rows. A row deleted while the transaction ran stays deleted,
   * as it would after waiting for the transaction's row lock in a database.
   */
  commit(written: ReadonlyMap<string, SendingDomainRecord>): void {
    for (const [id, domain] of written) if (this.rows.has(id)) this.rows.set(id, domain);
  }

  #named(name: string): SendingDomainRecord | undefined {
    for (const domain of this.rows.values()) if (domain.name === name) return domain;
    return undefined;
  }
}

/** Domain rows inside one memory transaction: replaced rows are kept aside until it commits. */
export class MemoryDomainRows implements DomainRowStore {
  readonly written = new Map<string, SendingDomainRecord>();
  readonly #stored: MemoryDomainRepository;

  constructor(stored: MemoryDomainRepository) {
    this.#stored = stored;
  }

  async lock(id: string): Promise<SendingDomainRecord | undefined> {
    const domain = this.written.get(id) ?? this.#stored.rows.get(id);
    return domain && structuredClone(domain);
  }

  async replace(domain: SendingDomainRecord): Promise<void> {
    this.written.set(domain.id, structuredClone(domain));
  }
}
