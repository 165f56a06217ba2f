import type {
  PageRequest,
  SoftBounceRecord,
  SuppressionFilter,
  SuppressionRecord,
  SuppressionRepository,
  SuppressionRowStore,
} from "../storage/index.js";
import { pageOf } from "./memory-webhook-state.js";

/** The suppression list in memory, by address: read here, written only by a committing transaction. */
export class MemorySuppressionRepository implements SuppressionRepository {
  /** The stored rows by address; handed out as copies only. */
  readonly rows = new Map<string, SuppressionRecord>();
  /** Soft bounces by address, each an email id and when. */
  readonly #softBounces = new Map<string, Map<string, string>>();

  async getSuppression(idOrEmail: string): Promise<SuppressionRecord | undefined> {
    const found = this.rows.get(idOrEmail) ?? [...this.rows.values()].find((entry) => entry.id === idOrEmail);
    return found && structuredClone(found);
  }

  async listSuppressions(filter: SuppressionFilter, page: PageRequest): Promise<SuppressionRecord[]> {
    const entries = [...this.rows.values()].filter((s) => filter.origin === undefined || s.origin === filter.origin);
    return pageOf(entries, (s) => s.id, page);
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

  /** Applies a transaction's writes: by address, the row to store, or null to remove it. */
  commit(written: ReadonlyMap<string, SuppressionRecord | null>): void {
    for (const [email, entry] of written) {
      if (entry) this.rows.set(email, entry);
      else this.rows.delete(email);
    }
  }
}

/**
 * Suppression rows inside one memory transaction: its writes are kept aside (reads in it see them)
 * and reach the repository when it commits. Transactions run one at a time, so `lock` needs no lock.
 */
export class MemorySuppressionRows implements SuppressionRowStore {
  readonly written = new Map<string, SuppressionRecord | null>();
  readonly #stored: MemorySuppressionRepository;

  constructor(stored: MemorySuppressionRepository) {
    this.#stored = stored;
  }

  async insertAbsent(entries: readonly SuppressionRecord[]): Promise<void> {
    for (const entry of entries) if (!this.#current(entry.email)) this.written.set(entry.email, structuredClone(entry));
  }

  async lock(idsOrEmails: readonly string[]): Promise<SuppressionRecord[]> {
    const found = new Map<string, SuppressionRecord>();
    const ids = new Set<string>();
    for (const key of idsOrEmails) {
      const entry = this.#current(key);
      if (entry) found.set(entry.email, entry);
      else ids.add(key);
    }
    if (ids.size > 0)
      for (const email of new Set([...this.#stored.rows.keys(), ...this.written.keys()])) {
        const entry = this.#current(email);
        if (entry && ids.has(entry.id)) found.set(email, entry);
      }
    return [...found.values()].map((entry) => structuredClone(entry));
  }

  async delete(ids: readonly string[]): Promise<void> {
    const doomed = new Set(ids);
    for (const entry of await this.lock(ids)) if (doomed.has(entry.id)) this.written.set(entry.email, null);
  }

  #current(email: string): SuppressionRecord | undefined {
    return this.written.has(email) ? (this.written.get(email) ?? undefined) : this.#stored.rows.get(email);
  }
}
