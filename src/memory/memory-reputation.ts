import { sendingDomainOf } from "../domains/reputation-window.js";
import type { DomainReputationCounts, EmailRecord, ReputationMark } from "../ports/storage/index.js";

/** The reputation marks of the emails in memory, and the window count the SQL adapters do with one query. */
export class ReputationMarks {
  readonly #marks = new Map<string, ReputationMark>();

  /** A complaint replaces a bounce mark, never the other way round. */
  mark(id: string, mark: ReputationMark): void {
    if (this.#marks.get(id) !== "complaint") this.#marks.set(id, mark);
  }

  /** The last `window` of `records` sent from `domain` (newest sentAt, then id, first) and their marks. */
  count(records: Iterable<EmailRecord>, domain: string, window: number): DomainReputationCounts {
    const sent = [...records]
      .filter((r) => r.sentAt !== undefined && sendingDomainOf(r.content) === domain)
      .sort((a, b) => (a.sentAt! !== b.sentAt! ? (a.sentAt! < b.sentAt! ? 1 : -1) : a.id < b.id ? 1 : -1))
      .slice(0, window);
    const counts: DomainReputationCounts = { sends: sent.length, bounces: 0, complaints: 0 };
    for (const r of sent) {
      const mark = this.#marks.get(r.id);
      if (mark === "bounce") counts.bounces += 1;
      else if (mark === "complaint") counts.complaints += 1;
    }
    return counts;
  }
}
