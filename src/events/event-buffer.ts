import { setTimeout as sleep } from "node:timers/promises";
import { FlagpostError, isFlagpostError } from "../errors.js";
import { backoffDelay, exponential } from "../jobs/backoff.js";
import { errorFields, type Logger } from "../logger.js";
import type { NewEvent } from "../storage/index.js";

/**
 * The in-process buffer behind `events.enqueue`: events wait in a bounded queue and a background
 * flusher appends them in batches. Nothing is dropped silently: a full queue refuses (or drops the
 * oldest, if so configured) and counts it; a failed write is logged, counted and retried with
 * backoff until it succeeds or `close()` gives up, and what was never stored is counted, logged and
 * handed to `onUnstored`.
 */

export type WhenFull = "reject" | "drop-oldest";

export interface EventBufferOptions {
  /** Write a batch as soon as this many events wait (1–1,000). Default 500. */
  maxBatch?: number;
  /** …or this long after the first event of a batch was enqueued. Default 1,000 ms. */
  flushIntervalMs?: number;
  /** Most events held at once, waiting or being written. Default 10,000. */
  maxQueue?: number;
  /**
   * When the queue is full: "reject" (default) refuses the new event (`enqueue` says so);
   * "drop-oldest" drops the oldest waiting event to make room. Either way it is counted and logged.
   */
  whenFull?: WhenFull;
  /** First retry delay after a failed write, doubled each time (with jitter). Default 100 ms. */
  retryInitialMs?: number;
  /** Longest retry delay. Default 30,000 ms. */
  retryMaxMs?: number;
  /** How long `close()` keeps trying to store what is left. Default 10,000 ms. */
  closeTimeoutMs?: number;
  /**
   * Receives events that will never be stored: dropped from a full queue ("drop-oldest"), refused
   * by storage as invalid (a bug), or still unstored when `close()` gave up. Use it to save them
   * elsewhere. Called synchronously; errors it throws are logged.
   */
  onUnstored?: (events: NewEvent[], reason: UnstoredReason) => void;
}

export type UnstoredReason = "dropped_oldest" | "refused_by_storage" | "close_timeout";

export interface EventBufferStats {
  /** Events waiting for the next batch. */
  waiting: number;
  /** Events in the batch being written (or waiting to be retried). */
  writing: number;
  /** Events `enqueue` accepted since start. */
  enqueued: number;
  /** Events the flusher stored. */
  stored: number;
  /** Events `enqueue` refused because the queue was full ("reject"). */
  rejectedFull: number;
  /** Events dropped to make room ("drop-oldest"). */
  droppedOldest: number;
  /** Events `enqueue` refused because they were invalid. */
  rejectedInvalid: number;
  /** Write attempts that failed (each was retried). */
  failedWrites: number;
  /** Events storage refused for good (validation or conflict): logged and handed to onUnstored. */
  refusedByStorage: number;
  /** Events still unstored when close() gave up. */
  unstoredAtClose: number;
}

interface Entry {
  seq: number;
  event: NewEvent;
}

interface Waiter {
  /** Resolved once every event up to this sequence number has left the buffer. */
  seq: number;
  resolve(): void;
  reject(error: unknown): void;
}

export type EventWriter = (events: NewEvent[]) => Promise<void>;

/** Errors that retrying cannot fix: the batch itself is refused. */
function isPermanent(error: unknown): boolean {
  return isFlagpostError(error, "validation_error") || isFlagpostError(error, "conflict");
}

export class EventBuffer {
  readonly #write: EventWriter;
  readonly #logger: Logger;
  readonly #maxBatch: number;
  readonly #flushIntervalMs: number;
  readonly #maxQueue: number;
  readonly #whenFull: WhenFull;
  readonly #retryInitialMs: number;
  readonly #retryMaxMs: number;
  readonly #closeTimeoutMs: number;
  readonly #onUnstored: EventBufferOptions["onUnstored"];

  #queue: Entry[] = [];
  /** The batch being written; fixed across retries, so a retry after an ambiguous failure is recognisable. */
  #inFlight: Entry[] | undefined;
  #inFlightAttempts = 0;
  #seq = 0;
  /** Events up to this sequence number are written even in a partial batch (the timer fired, flush() or close() asked). */
  #drainThrough = 0;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #waiters: Waiter[] = [];
  #closed = false;
  /** Set when close() gave up: the loop stops retrying. */
  #abandoned = false;
  #retryAbort: AbortController | undefined;
  #full = false;
  readonly #stats = {
    enqueued: 0,
    stored: 0,
    rejectedFull: 0,
    droppedOldest: 0,
    rejectedInvalid: 0,
    failedWrites: 0,
    refusedByStorage: 0,
    unstoredAtClose: 0,
  };

  constructor(write: EventWriter, logger: Logger, options: EventBufferOptions = {}) {
    this.#write = write;
    this.#logger = logger;
    this.#maxBatch = positive("maxBatch", options.maxBatch ?? 500, 1000);
    this.#flushIntervalMs = positive("flushIntervalMs", options.flushIntervalMs ?? 1000);
    this.#maxQueue = positive("maxQueue", options.maxQueue ?? 10_000);
    if (this.#maxQueue < this.#maxBatch)
      throw new FlagpostError("validation_error", "maxQueue must be at least maxBatch");
    this.#whenFull = options.whenFull ?? "reject";
    this.#retryInitialMs = positive("retryInitialMs", options.retryInitialMs ?? 100);
    this.#retryMaxMs = positive("retryMaxMs", options.retryMaxMs ?? 30_000);
    this.#closeTimeoutMs = nonNegative("closeTimeoutMs", options.closeTimeoutMs ?? 10_000);
    this.#onUnstored = options.onUnstored;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues a valid event; false when the queue is full under "reject" (or the buffer is closed). */
  push(event: NewEvent): boolean {
    if (this.#closed) return false;
    if (this.#size() >= this.#maxQueue) {
      if (this.#whenFull === "reject" || this.#queue.length === 0) {
        this.#stats.rejectedFull += 1;
        this.#noteFull();
        return false;
      }
      const dropped = this.#queue.shift()!;
      this.#stats.droppedOldest += 1;
      this.#noteFull();
      this.#handOver([dropped.event], "dropped_oldest");
    }
    this.#queue.push({ seq: ++this.#seq, event });
    this.#stats.enqueued += 1;
    if (this.#queue.length >= this.#maxBatch) this.#kick();
    else this.#arm();
    return true;
  }

  /** Counts an event `enqueue` refused as invalid (the tracker validates; the buffer counts). */
  noteInvalid(): void {
    this.#stats.rejectedInvalid += 1;
  }

  stats(): EventBufferStats {
    return { waiting: this.#queue.length, writing: this.#inFlight?.length ?? 0, ...this.#stats };
  }

  /**
   * Resolves once every event enqueued before the call is stored (or has otherwise left the buffer:
   * dropped, refused). Rejects with the storage error if a write fails meanwhile; the events stay
   * queued and the flusher keeps retrying them.
   */
  flush(): Promise<void> {
    const target = this.#seq;
    if (this.#oldestSeq() > target) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ seq: target, resolve, reject }));
    this.#drainThrough = Math.max(this.#drainThrough, target);
    this.#kick();
    this.#retryAbort?.abort(); // retry now rather than after the backoff
    return done;
  }

  /**
   * Refuses new events, then stores what is queued, retrying failed writes for up to
   * closeTimeoutMs. Returns how many events could not be stored (counted, logged, handed to onUnstored).
   */
  async close(): Promise<number> {
    if (this.#closed) {
      await this.#running;
      return 0;
    }
    this.#closed = true;
    if (this.#size() === 0) return 0;
    this.#drainThrough = Number.POSITIVE_INFINITY;
    this.#kick();
    this.#retryAbort?.abort();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.#closeTimeoutMs);
    });
    const outcome = await Promise.race([this.#running!.then(() => "drained" as const), deadline]);
    clearTimeout(timer);
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (outcome === "drained" && this.#size() === 0) return 0;

    this.#abandoned = true;
    this.#retryAbort?.abort();
    const left = [...(this.#inFlight ?? []), ...this.#queue];
    this.#settle(new FlagpostError("unavailable", `${left.length} buffered events could not be stored before close`));
    this.#inFlight = undefined;
    this.#queue = [];
    this.#stats.unstoredAtClose += left.length;
    this.#logger.error("buffered events could not be stored before close", {
      count: left.length,
      closeTimeoutMs: this.#closeTimeoutMs,
    });
    this.#handOver(
      left.map((e) => e.event),
      "close_timeout",
    );
    return left.length;
  }

  #size(): number {
    return this.#queue.length + (this.#inFlight?.length ?? 0);
  }

  #oldestSeq(): number {
    return this.#inFlight?.[0]?.seq ?? this.#queue[0]?.seq ?? Number.POSITIVE_INFINITY;
  }

  /** Starts the interval timer for the waiting partial batch, unless it runs already. */
  #arm(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#drainThrough = Math.max(this.#drainThrough, this.#seq);
      this.#kick();
    }, this.#flushIntervalMs).unref();
  }

  /** Whether the loop may write the head of the queue now: a full batch, or a partial one asked for. */
  #due(): boolean {
    return (
      this.#queue.length >= this.#maxBatch || (this.#queue.length > 0 && this.#queue[0]!.seq <= this.#drainThrough)
    );
  }

  #kick(): void {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
      if (this.#queue.length === 0 || this.#abandoned) return;
      if (this.#due()) this.#kick();
      else this.#arm();
    });
  }

  async #run(): Promise<void> {
    while (!this.#abandoned) {
      if (!this.#inFlight) {
        if (!this.#due()) return; // a partial batch waits for the timer
        if (this.#timer && this.#queue.length <= this.#maxBatch) {
          clearTimeout(this.#timer); // everything waiting goes now
          this.#timer = undefined;
        }
        this.#inFlight = this.#queue.splice(0, this.#maxBatch);
        this.#inFlightAttempts = 0;
      }
      const batch = this.#inFlight;
      this.#inFlightAttempts += 1;
      try {
        await this.#write(batch.map((e) => e.event));
        if (this.#abandoned) return; // close() gave up and already accounted for this batch
        this.#stats.stored += batch.length;
        this.#done();
      } catch (error) {
        if (this.#abandoned) return;
        if (isFlagpostError(error, "conflict") && this.#inFlightAttempts > 1) {
          // An earlier attempt failed after its commit (e.g. the connection dropped on COMMIT):
          // these ids are stored already. Batches are all-or-nothing, so all of them are.
          this.#logger.warn("a retried event batch had been stored by an earlier attempt", { count: batch.length });
          this.#stats.stored += batch.length;
          this.#done();
          continue;
        }
        if (isPermanent(error)) {
          this.#stats.refusedByStorage += batch.length;
          this.#logger.error("storage refused a batch of buffered events", {
            count: batch.length,
            ids: batch.slice(0, 10).map((e) => e.event.id),
            ...errorFields(error),
          });
          this.#handOver(
            batch.map((e) => e.event),
            "refused_by_storage",
          );
          this.#done();
          continue;
        }
        this.#stats.failedWrites += 1;
        const delay = this.#backoff();
        this.#logger.error("storing buffered events failed; retrying", {
          count: batch.length,
          attempt: this.#inFlightAttempts,
          retryInMs: Math.round(delay),
          ...errorFields(error),
        });
        this.#settle(error);
        await this.#pause(this.#closed ? Math.min(delay, 250) : delay);
      }
    }
  }

  /** The in-flight batch has left the buffer. */
  #done(): void {
    this.#inFlight = undefined;
    this.#inFlightAttempts = 0;
    if (this.#full && this.#size() < this.#maxQueue) {
      this.#full = false;
      this.#logger.warn("the event queue has room again", { ...this.#stats });
    }
    this.#settle();
  }

  #backoff(): number {
    return backoffDelay(exponential(this.#retryInitialMs, this.#retryMaxMs, "equal"), this.#inFlightAttempts);
  }

  async #pause(ms: number): Promise<void> {
    this.#retryAbort = new AbortController();
    try {
      await sleep(ms, undefined, { signal: this.#retryAbort.signal, ref: false });
    } catch {
      // aborted: flush() or close() wants a retry now
    } finally {
      this.#retryAbort = undefined;
    }
  }

  /** Resolves waiters whose events have all left; with an error, rejects the rest. */
  #settle(error?: unknown): void {
    if (this.#waiters.length === 0) return;
    const oldest = this.#oldestSeq();
    const pending: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (waiter.seq < oldest) waiter.resolve();
      else if (error !== undefined) waiter.reject(error);
      else pending.push(waiter);
    }
    this.#waiters = pending;
  }

  #noteFull(): void {
    if (this.#full) return;
    this.#full = true;
    this.#logger.warn(
      this.#whenFull === "reject"
        ? "the event queue is full; new events are refused"
        : "the event queue is full; the oldest events are dropped",
      {
        maxQueue: this.#maxQueue,
        ...this.#stats,
      },
    );
  }

  #handOver(events: NewEvent[], reason: UnstoredReason): void {
    if (!this.#onUnstored || events.length === 0) return;
    try {
      this.#onUnstored(events, reason);
    } catch (error) {
      this.#logger.error("onUnstored failed", errorFields(error));
    }
  }
}

function positive(name: string, value: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new FlagpostError("validation_error", `${name} must be an integer from 1 to ${max}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new FlagpostError("validation_error", `${name} must be an integer of at least 0`);
  return value;
}
