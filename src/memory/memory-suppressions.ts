import type {
  DomainEvent,
  PageRequest,
  SoftBounceRecord,
  SuppressionFilter,
  SuppressionRecord,
  SuppressionRepository,
} from "../storage/index.js";
import { type MemoryWebhookState, pageOf } from "./memory-webhook-state.js";

/** The suppression list in memory, by address. Each method runs without awaiting, so it is atomic here. */
export class MemorySuppressionRepository implements SuppressionRepository {
  readonly #byEmail = new Map<string, SuppressionRecord>();
  /** Soft bounces by address, each an email id and when. */
  readonly #softBounces = new Map<string, Map<string, string>>();
  readonly #webhooks: MemoryWebhookState;

  constructor(webhooks: MemoryWebhookState) {
    this.#webhooks = webhooks;
  }

  async addSuppressions(
    entries: readonly SuppressionRecord[],
    events?: (added: SuppressionRecord) => readonly DomainEvent[],
  ): Promise<SuppressionRecord[]> {
    return entries.map((entry) => {
      const existing = this.#byEmail.get(entry.email);
      if (existing) return structuredClone(existing);
      this.#byEmail.set(entry.email, structuredClone(entry));
      this.#webhooks.recordDomainEvents(events?.(structuredClone(entry)));
      return structuredClone(entry);
    });
  }

  async getSuppression(idOrEmail: string): Promise<SuppressionRecord | undefined> {
    const found = this.#find(idOrEmail);
    return found && structuredClone(found);
  }

  async listSuppressions(filter: SuppressionFilter, page: PageRequest): Promise<SuppressionRecord[]> {
    const entries = [...this.#byEmail.values()].filter(
      (s) => filter.origin === undefined || s.origin === filter.origin,
    );
    return pageOf(entries, (s) => s.id, page);
  }

  async removeSuppressions(
    idsOrEmails: readonly string[],
    events?: (removed: SuppressionRecord) => readonly DomainEvent[],
  ): Promise<SuppressionRecord[]> {
    const removed: SuppressionRecord[] = [];
    for (const key of idsOrEmails) {
      const found = this.#find(key);
      if (!found) continue;
      this.#byEmail.delete(found.email);
      this.#webhooks.recordDomainEvents(events?.(structuredClone(found)));
      removed.push(found);
    }
    return removed;
  }

  async countSoftBounce(bounce: SoftBounceRecord, since: string): Promise<number> {
    const byEmail = this.#softBounces.get(bounce.email) ?? new Map<string, string>();
    this.#softBounces.set(bounce.email, byEmail);
    if (!byEmail.has(bounce.emailId)) byEmail.set(bounce.emailId, bounce.at);
    for (const [emailId, at] of byEmail) if (at < since) byEmail.delete(emailId);
    return byEmail.size;
  }

  async suppressedAmong(emails: readonly string[]): Promise<string[]> {
    return [...new Set(emails)].filter((email) => this.#byEmail.has(email));
  }

  #find(idOrEmail: string): SuppressionRecord | undefined {
    const byEmail = this.#byEmail.get(idOrEmail);
    if (byEmail) return byEmail;
    for (const entry of this.#byEmail.values()) if (entry.id === idOrEmail) return entry;
    return undefined;
  }
}
