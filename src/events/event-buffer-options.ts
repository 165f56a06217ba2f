import { FlagpostError } from "../errors.js";
import type { NewEvent } from "../ports/storage/index.js";

/** The options of the event buffer behind `events.enqueue` (event-buffer.ts), and its counters. */

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

/** How the buffer stores a batch: all of it or nothing (storage.events.appendEvents). */
export type EventWriter = (events: NewEvent[]) => Promise<void>;

/** What EventBuffer counts: the stats without the two gauges (waiting, writing). */
export function zeroCounters(): Omit<EventBufferStats, "waiting" | "writing"> {
  return {
    enqueued: 0,
    stored: 0,
    rejectedFull: 0,
    droppedOldest: 0,
    rejectedInvalid: 0,
    failedWrites: 0,
    refusedByStorage: 0,
    unstoredAtClose: 0,
  };
}

/** The options with their defaults, checked once: invalid ones throw `validation_error`. */
export interface BufferSettings {
  maxBatch: number;
  flushIntervalMs: number;
  maxQueue: number;
  whenFull: WhenFull;
  retryInitialMs: number;
  retryMaxMs: number;
  closeTimeoutMs: number;
  onUnstored: EventBufferOptions["onUnstored"];
}

export function bufferSettings(options: EventBufferOptions): BufferSettings {
  const maxBatch = positive("maxBatch", options.maxBatch ?? 500, 1000);
  const maxQueue = positive("maxQueue", options.maxQueue ?? 10_000);
  if (maxQueue < maxBatch) throw new FlagpostError("validation_error", "maxQueue must be at least maxBatch");
  return {
    maxBatch,
    flushIntervalMs: positive("flushIntervalMs", options.flushIntervalMs ?? 1000),
    maxQueue,
    whenFull: options.whenFull ?? "reject",
    retryInitialMs: positive("retryInitialMs", options.retryInitialMs ?? 100),
    retryMaxMs: positive("retryMaxMs", options.retryMaxMs ?? 30_000),
    closeTimeoutMs: nonNegative("closeTimeoutMs", options.closeTimeoutMs ?? 10_000),
    onUnstored: options.onUnstored,
  };
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
