import type {
  PageRequest,
  SoftBounceRecord,
  SuppressionFilter,
  SuppressionRecord,
  SuppressionRepository,
  SuppressionRowStore,
} from "../ports/storage/index.js";
import { copy, MemoryTable, StagedTable } from "./memory-table.js";

/** The suppression list in memory, by address: read here, written only by a committing transaction. */
export class MemorySuppressionRepository implements SuppressionRepository {
  readonly rows = new MemoryTable<SuppressionRecord>((s) => s.email);
  /** Soft bounces by address, each an email id and when. */
  readonly #softBounces = new Map<string, Map<string, string>>();

  async getSuppression(idOrEmail: string): Promise<SuppressionRecord | undefined> {
    const found = this.rows.get(idOrEmail) ?? this.rows.find((entry) => entry.id === idOrEmail);
    return found && copy(found);
  }

  async listSuppressions({ origin }: SuppressionFilter, page: PageRequest): Promise<SuppressionRecord[]> {
    return this.rows.page(
      page,
      (s) => origin === undefined || s.origin === origin,
      (s) => s.id,
    );
  }

  async countSoftBounce(bounce: SoftBounceRecord, since: string): Promise<number> {
    const byEmail = this.#softBounces.get(bounce.email) ?? new Map<string, string>();
    this.#softBounces.set(bounce.email, byEmail);
    if (!byEmail.has(bounce.emailId)) byEmail.set(bounce.emailId, bounce.at);
    for (const [emailId, at] of byEmail) if (at < since) byEmail.delete(emailId);
    return byEmail.size;
  }

  async suppressedAmong(emails: readonly string[]): Promise<string[]> {
    return [...new Set(emails)].filter((email) => this.rows.has(email));
  }
}

/** Suppression rows inside one memory transaction (memory-transaction.ts). */
export class MemorySuppressionRows extends StagedTable<SuppressionRecord> implements SuppressionRowStore {
  async insertAbsent(entries: readonly SuppressionRecord[]): Promise<void> {
    for (const entry of entries) if (!this.get(entry.email)) this.set(entry.email, entry);
  }

  async lock(idsOrEmails: readonly string[]): Promise<SuppressionRecord[]> {
    const keys = new Set(idsOrEmails);
    return [...this.rows()].filter((s) => keys.has(s.email) || keys.has(s.id)).map(copy);
  }

  async delete(ids: readonly string[]): Promise<void> {
    for (const entry of await this.lock(ids)) if (ids.includes(entry.id)) this.set(entry.email, null);
  }
}
