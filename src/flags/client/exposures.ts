import type { Clock } from "../../ports/clock.js";
import { errorFields, type Logger } from "../../ports/logger.js";
import type { EvaluationReason } from "../schema.js";
import type { AfterEvaluation } from "./after-evaluation.js";
import { isOn, reasonOf } from "./decision.js";

/**
 * Opt-in `$exposure` events: which user saw which value of which flag, for experiment analysis.
 * `record` runs on the `isEnabled` hot path, so it only checks a de-duplication map and pushes to
 * a buffer; a timer hands the buffer to the sink. Nothing here blocks the caller or throws at it:
 * a sink that throws or rejects is counted and logged, and a full buffer drops (and counts) events.
 */

export const EXPOSURE_EVENT = "$exposure";

/**
 * Where events go: anything with an `enqueue(event)` method that buffers and sends in the
 * background. flagpost's EventTracker (`fp.events`) is one; a test can pass an array's wrapper.
 * A returned promise is observed for rejection, never awaited.
 */
export interface EventSink {
  enqueue(event: { event: string; userId: string; timestamp?: string; properties?: Record<string, unknown> }): unknown;
}

export interface ExposureEvent {
  event: typeof EXPOSURE_EVENT;
  userId: string;
  /** When the flag was evaluated (ISO 8601, UTC). */
  timestamp: string;
  /**
   * `experimentId` (= flagKey) and `variant` are set when the flag has variants and is on for the
   * user: they are what experiment results read assignment from (docs/experiments.md).
   */
  properties: {
    flagKey: string;
    enabled: boolean;
    reason: EvaluationReason;
    ruleIndex?: number;
    experimentId?: string;
    variant?: string;
  };
}

export interface ExposureOptions {
  /** Turns exposure events on. Default false. */
  enabled?: boolean;
  /** The same user, flag and result are reported at most once per window. Default 10 minutes. */
  windowMs?: number;
  /**
   * Most (user, flag, result) triples remembered for de-duplication. Memory is bounded by it: past
   * it the oldest half is forgotten, so a triple may then be reported again within its window. Default 50,000.
   */
  maxKeys?: number;
  /** Most events waiting for the sink; past it new events are dropped and counted. Default 10,000. */
  maxBuffer?: number;
  /** Where events go. */
  sink?: EventSink;
}

export interface ExposureStats {
  /** Handed to the sink. */
  sent: number;
  /** Not recorded because the same user, flag and result were reported within the window. */
  deduplicated: number;
  /** Lost because the buffer was full. */
  dropped: number;
  /** The sink threw or rejected. */
  failed: number;
}

export const DEFAULT_EXPOSURE_WINDOW_MS = 10 * 60_000;
const DEFAULT_MAX_KEYS = 50_000;
const DEFAULT_MAX_BUFFER = 10_000;

export class ExposureRecorder {
  readonly #sink: EventSink;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #maxBuffer: number;
  /**
   * When each (flag, result, user) was last reported, in two generations: a triple is looked up in
   * both, written to the current one, and when the current one holds maxKeys / 2 triples it
   * becomes the previous one (the older one is dropped). Keyed flag → [off, on] → userId, so a
   * lookup hashes strings the caller already holds and allocates nothing.
   */
  #current = new Map<string, [Map<string, number>, Map<string, number>]>();
  #previous = new Map<string, [Map<string, number>, Map<string, number>]>();
  #currentSize = 0;
  #previousSize = 0;
  #buffer: ExposureEvent[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  readonly #stats: ExposureStats = { sent: 0, deduplicated: 0, dropped: 0, failed: 0 };

  constructor(
    sink: EventSink,
    options: { windowMs?: number; maxKeys?: number; maxBuffer?: number; clock: Clock; logger: Logger },
  ) {
    this.#sink = sink;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#windowMs = options.windowMs ?? DEFAULT_EXPOSURE_WINDOW_MS;
    this.#maxKeys = Math.max(2, options.maxKeys ?? DEFAULT_MAX_KEYS);
    this.#maxBuffer = Math.max(1, options.maxBuffer ?? DEFAULT_MAX_BUFFER);
  }

  /** Hot path: de-duplicates, then buffers. `ruleIndex` is set when a rule matched, `variant` when the user got one. */
  record(
    flagKey: string,
    userId: string,
    enabled: boolean,
    reason: EvaluationReason,
    ruleIndex: number | undefined,
    variant?: string,
  ): void {
    if (this.#closed) return;
    const now = this.#clock.now();
    const slot = enabled ? 1 : 0;
    let current = this.#current.get(flagKey);
    const last = current?.[slot].get(userId) ?? this.#previous.get(flagKey)?.[slot].get(userId);
    if (last !== undefined && now - last < this.#windowMs) {
      this.#stats.deduplicated += 1;
      return;
    }
    if (this.#buffer.length >= this.#maxBuffer) {
      this.#stats.dropped += 1;
      return;
    }
    if (current === undefined) {
      current = [new Map(), new Map()];
      this.#current.set(flagKey, current);
    }
    const seen = current[slot];
    const size = seen.size;
    seen.set(userId, now);
    if (seen.size > size && ++this.#currentSize >= this.#maxKeys / 2) this.#rotate();
    const properties: ExposureEvent["properties"] =
      ruleIndex === undefined ? { flagKey, enabled, reason } : { flagKey, enabled, reason, ruleIndex };
    if (variant !== undefined) {
      properties.experimentId = flagKey;
      properties.variant = variant;
    }
    this.#buffer.push({ event: EXPOSURE_EVENT, userId, timestamp: new Date(now).toISOString(), properties });
    this.#timer ??= setTimeout(() => this.flush(), 0);
  }

  /** Hands every buffered event to the sink now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const events = this.#buffer;
    if (events.length === 0) return;
    this.#buffer = [];
    for (const event of events) {
      try {
        const result = this.#sink.enqueue(event);
        if (typeof (result as PromiseLike<unknown> | undefined)?.then === "function") {
          (result as PromiseLike<unknown>).then(undefined, (error: unknown) => this.#failed(error));
        }
        this.#stats.sent += 1;
      } catch (error) {
        this.#failed(error);
      }
    }
  }

  /** Flushes and stops recording. */
  close(): void {
    this.flush();
    this.#closed = true;
  }

  stats(): ExposureStats {
    return { ...this.#stats };
  }

  /** How many (user, flag, result) triples are remembered; never more than `maxKeys`. */
  get remembered(): number {
    return this.#currentSize + this.#previousSize;
  }

  #rotate(): void {
    this.#previous = this.#current;
    this.#previousSize = this.#currentSize;
    this.#current = new Map();
    this.#currentSize = 0;
  }

  #failed(error: unknown): void {
    this.#stats.failed += 1;
    // The first failure and then one in a thousand: a broken sink must not flood the log.
    if (this.#stats.failed % 1000 === 1)
      this.#logger.warn("exposure events could not be enqueued", { failed: this.#stats.failed, ...errorFields(error) });
  }
}

/**
 * The recorder as an entry of the flag client's after-evaluation list: an exposure for each
 * evaluation a caller made for itself with a user id. Made once per client, not per call.
 */
export function exposureListener(recorder: ExposureRecorder): AfterEvaluation {
  return (flag, userId, _attributes, outcome, variantIndex, forCaller) => {
    if (!forCaller || userId === undefined) return;
    recorder.record(
      flag.key,
      userId,
      isOn(outcome),
      reasonOf(outcome),
      outcome >= 0 ? outcome : undefined,
      variantIndex >= 0 ? flag.variants!.keys[variantIndex] : undefined,
    );
  };
}
