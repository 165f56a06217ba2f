import { setTimeout as sleep } from "node:timers/promises";
import { FlagpostError, isFlagpostError } from "../errors.js";
import { backoffDelay, exponential } from "../jobs/backoff.js";
import { errorFields, type Logger } from "../ports/logger.js";
import type { NewEvent } from "../ports/storage/index.js";
import { FlushWaiters } from "./flush-waiters.js";
import {
  bufferSettings,
  zeroCounters,
  type BufferSettings,
  type EventBufferOptions,
  type EventBufferStats,
  type EventWriter,
  type UnstoredReason,
} from "./event-buffer-options.js";

/**
 * The in-process buffer behind `events.enqueue`: events wait in a bounded queue and a background
 * flusher appends them in batches. Nothing is dropped silently: a full queue refuses (or drops the
 * oldest, if so configured) and counts it; a failed write is logged, counted and retried with
 * backoff until it succeeds or `close()` gives up, and what was never stored is counted, logged and
 * handed to `onUnstored`.
 */

interface Entry {
  seq: number;
  event: NewEvent;
}

const eventsOf = (entries: Entry[]): NewEvent[] => entries.map((e) => e.event);

/** Errors that retrying cannot fix: the batch itself is refused. */
function isPermanent(error: unknown): boolean {
  return isFlagpostError(error, "validation_error") || isFlagpostError(error, "conflict");
}

export class EventBuffer {
  readonly #write: EventWriter;
  readonly #logger: Logger;
  readonly #settings: BufferSettings;

  #queue: Entry[] = [];
  /** The batch being written; fixed across retries, so a retry after an ambiguous failure is recognisable. */
  #inFlight: Entry[] | undefined;
  #inFlightAttempts = 0;
  #seq = 0;
  /** Events up to this sequence number are written even in a partial batch (the timer fired, flush() or close() asked). */
  #drainThrough = 0;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  readonly #waiters = new FlushWaiters();
  #closed = false;
  /** Set when close() gave up: the loop stops retrying. */
  #abandoned = false;
  #retryAbort: AbortController | undefined;
  #full = false;
  readonly #stats = zeroCounters();

  constructor(write: EventWriter, logger: Logger, options: EventBufferOptions = {}) {
    this.#write = write;
    this.#logger = logger;
    this.#settings = bufferSettings(options);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues a valid event; false when the queue is full under "reject" (or the buffer is closed). */
  push(event: NewEvent): boolean {
    if (this.#closed) return false;
    if (this.#size() >= this.#settings.maxQueue) {
      if (this.#settings.whenFull === "reject" || this.#queue.length === 0) {
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
    if (this.#queue.length >= this.#settings.maxBatch) this.#kick();
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
    const done = this.#waiters.wait(target);
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
      timer = setTimeout(() => resolve("timeout"), this.#settings.closeTimeoutMs);
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
      closeTimeoutMs: this.#settings.closeTimeoutMs,
    });
    this.#handOver(eventsOf(left), "close_timeout");
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
    }, this.#settings.flushIntervalMs).unref();
  }

  /** Whether the loop may write the head of the queue now: a full batch, or a partial one asked for. */
  #due(): boolean {
    return (
      this.#queue.length >= this.#settings.maxBatch ||
      (this.#queue.length > 0 && this.#queue[0]!.seq <= this.#drainThrough)
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
        if (this.#timer && this.#queue.length <= this.#settings.maxBatch) {
          clearTimeout(this.#timer); // everything waiting goes now
          this.#timer = undefined;
        }
        this.#inFlight = this.#queue.splice(0, this.#settings.maxBatch);
        this.#inFlightAttempts = 0;
      }
      const batch = this.#inFlight;
      this.#inFlightAttempts += 1;
      try {
        await this.#write(eventsOf(batch));
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
          this.#handOver(eventsOf(batch), "refused_by_storage");
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
    if (this.#full && this.#size() < this.#settings.maxQueue) {
      this.#full = false;
      this.#logger.warn("the event queue has room again", { ...this.#stats });
    }
    this.#settle();
  }

  #backoff(): number {
    return backoffDelay(
      exponential(this.#settings.retryInitialMs, this.#settings.retryMaxMs, "equal"),
      this.#inFlightAttempts,
    );
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

  /** Resolves flush() callers whose events have all left; with an error, rejects the rest. */
  #settle(error?: unknown): void {
    this.#waiters.settle(this.#oldestSeq(), error);
  }

  #noteFull(): void {
    if (this.#full) return;
    this.#full = true;
    this.#logger.warn(
      this.#settings.whenFull === "reject"
        ? "the event queue is full; new events are refused"
        : "the event queue is full; the oldest events are dropped",
      {
        maxQueue: this.#settings.maxQueue,
        ...this.#stats,
      },
    );
  }

  #handOver(events: NewEvent[], reason: UnstoredReason): void {
    const onUnstored = this.#settings.onUnstored;
    if (!onUnstored || events.length === 0) return;
    try {
      onUnstored(events, reason);
    } catch (error) {
      this.#logger.error("onUnstored failed", errorFields(error));
    }
  }
}
