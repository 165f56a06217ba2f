/**
 * Group commit: many small writes share one transaction, so one commit (an fsync on SQLite,
 * which blocks the event loop; a round trip on a server database) serves all of them. Each
 * `add(item)` resolves with its own item's result once the group's write is done.
 *
 * When a group is written:
 * - at the next turn of the event loop when `writeNow()` says so (default: always), so that
 *   everything added in the same turn joins, and
 * - otherwise after `maxDelayMs` (items that are likely to be followed by others wait briefly
 *   for them), or as soon as `maxBatch` items wait, or on `flush()`.
 * Writes never overlap: items added during a write form the next group.
 *
 * Used by the email outbox (outcomes), `emails.send` (inserts) and the job workers of webhook
 * deliveries and scheduled flag changes: build one per kind of write. A read that many callers
 * make at once can share a round the same way (the send path's suppression check).
 *
 * ```ts
 * const outcomes = new GroupCommit((writes: Outcome[]) => storage.jobs.recordOutcomes(writes), {
 *   maxBatch: 200, maxDelayMs: 20, writeNow: () => worker.busy === 0,
 * });
 * const applied = await outcomes.add(outcome); // this outcome's own answer
 * ```
 */
export interface GroupCommitOptions {
  /** Most items in one write. Default 200. */
  maxBatch?: number;
  /** How long an item may wait for others when `writeNow()` is false. Default 0. */
  maxDelayMs?: number;
  /** Whether the waiting items should be written at the next turn rather than after `maxDelayMs`. Default: always. */
  writeNow?: (waiting: number) => boolean;
  /**
   * When a group's write fails: "reject" (default) rejects every item of the group with the error;
   * "one-by-one" writes each item alone so each gets its own answer (one bad item then fails only
   * its own call).
   */
  onGroupFailure?: "reject" | "one-by-one";
}

interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export class GroupCommit<T, R> {
  readonly #write: (items: T[]) => Promise<R[]>;
  readonly #maxBatch: number;
  readonly #maxDelayMs: number;
  readonly #writeNow: (waiting: number) => boolean;
  readonly #onGroupFailure: "reject" | "one-by-one";
  #waiting: Pending<T, R>[] = [];
  #writing = false;
  /** flush() was called during a write: the next group is written at once too. */
  #flushed = false;
  #timer: NodeJS.Timeout | undefined;

  /** `write` stores the items in one transaction and returns one result per item, in order. */
  constructor(write: (items: T[]) => Promise<R[]>, options: GroupCommitOptions = {}) {
    this.#write = write;
    this.#maxBatch = options.maxBatch ?? 200;
    this.#maxDelayMs = options.maxDelayMs ?? 0;
    this.#writeNow = options.writeNow ?? (() => true);
    this.#onGroupFailure = options.onGroupFailure ?? "reject";
  }

  /** Items waiting for a write (not counting the one being written). */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Queues the item for the next group write; resolves with its result once written. */
  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#schedule(false);
    });
  }

  /** Writes what is waiting at the next turn instead of after the delay (e.g. when stopping). */
  flush(): void {
    if (this.#writing) this.#flushed = true;
    this.#schedule(true);
  }

  #schedule(urgent: boolean): void {
    if (this.#writing || this.#waiting.length === 0) return;
    if (
      urgent ||
      this.#flushed ||
      this.#maxDelayMs === 0 ||
      this.#waiting.length >= this.#maxBatch ||
      this.#writeNow(this.#waiting.length)
    ) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#flushed = false;
      this.#writing = true;
      // One turn of the event loop, so items added in this turn join the write.
      setImmediate(() => void this.#run());
    } else {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#writing = true;
        void this.#run();
      }, this.#maxDelayMs);
    }
  }

  async #run(): Promise<void> {
    const group = this.#waiting.splice(0, this.#maxBatch);
    try {
      const results = await this.#write(group.map((p) => p.item));
      group.forEach((p, i) => p.resolve(results[i] as R));
    } catch (error) {
      if (this.#onGroupFailure === "reject" || group.length === 1) for (const p of group) p.reject(error);
      else for (const p of group) await this.#write([p.item]).then((results) => p.resolve(results[0] as R), p.reject);
    }
    this.#writing = false;
    this.#schedule(false);
  }
}
