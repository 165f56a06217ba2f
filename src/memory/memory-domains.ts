import { FlagpostError } from "../errors.js";
import type { DomainRepository, DomainRowStore, PageRequest, SendingDomainRecord } from "../ports/storage/index.js";
import { ascending, copy, MemoryTable, StagedTable } from "./memory-table.js";

/** Sending domains in memory, by id. Changes arrive from a committing transaction (memory-transaction.ts). */
export class MemoryDomainRepository implements DomainRepository {
  readonly rows = new MemoryTable<SendingDomainRecord>((d) => d.id);

  async insertDomain(domain: SendingDomainRecord): Promise<void> {
    const conflict = `The domain "${domain.name}" already exists`;
    if (this.#named(domain.name)) throw new FlagpostError("conflict", conflict);
    this.rows.insert([domain], () => conflict);
  }

  async getDomain(id: string): Promise<SendingDomainRecord | undefined> {
    return this.rows.read(id);
  }

  async getDomainByName(name: string): Promise<SendingDomainRecord | undefined> {
    const found = this.#named(name);
    return found && copy(found);
  }

  async listDomains(page: PageRequest): Promise<SendingDomainRecord[]> {
    return this.rows.page(page);
  }

  async deleteDomain(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  async listDomainsToRecheck(checkedBefore: string, limit: number): Promise<SendingDomainRecord[]> {
    return [
      ...this.rows.where((d) => d.status !== "not_started" && d.checkedAt !== undefined && d.checkedAt < checkedBefore),
    ]
      .sort((a, b) => ascending(a.checkedAt!, b.checkedAt!))
      .slice(0, limit)
      .map(copy);
  }

  /** Whether mail from this domain waits (the outbox's claim filter). */
  isPaused(name: string | undefined): boolean {
    return name !== undefined && this.#named(name)?.pausedAt !== undefined;
  }

  #named(name: string): SendingDomainRecord | undefined {
    return this.rows.find((domain) => domain.name === name);
  }
}

/** Domain rows inside one memory transaction: replaced rows are kept aside until it commits (with `replaceOnly`). */
export class MemoryDomainRows extends StagedTable<SendingDomainRecord> implements DomainRowStore {
  async lock(id: string): Promise<SendingDomainRecord | undefined> {
    const domain = this.get(id);
    return domain && copy(domain);
  }

  async replace(domain: SendingDomainRecord): Promise<void> {
    this.set(domain.id, domain);
  }
}
