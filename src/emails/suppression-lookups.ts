import { GroupCommit } from "../jobs/group-commit.js";
import type { Storage } from "../ports/storage/index.js";

/** Most recipient lists answered by one read: far below every engine's bound-parameter limit once chunked. */
const MAX_LISTS_PER_READ = 200;

/**
 * The suppression check of each send attempt, with the attempts that start together sharing one
 * read: a worker starts its claimed emails in the same turn of the event loop, and a read per
 * email (one statement, and on SQLite one query built and run on the event loop) was a tenth of
 * the outbox's own CPU per email. Every answer still comes from storage at send time, read after
 * the attempt asked: a suppression added by any process before that read is honoured, as it was
 * with a read per email. Nothing is cached between reads.
 */
export class SuppressionLookups {
  readonly #reads: GroupCommit<readonly string[], string[]>;

  constructor(storage: Pick<Storage, "suppressions">) {
    this.#reads = new GroupCommit(
      async (lists) => {
        const all = [...new Set(lists.flat())];
        const found = new Set(all.length === 0 ? [] : await storage.suppressions.suppressedAmong(all));
        return lists.map((list) => [...new Set(list.filter((address) => found.has(address)))]);
      },
      { maxBatch: MAX_LISTS_PER_READ, onGroupFailure: "one-by-one" },
    );
  }

  /** Which of these (lower-cased) addresses are on the suppression list, without repeats. */
  suppressedAmong(addresses: readonly string[]): Promise<string[]> {
    return this.#reads.add(addresses);
  }
}
