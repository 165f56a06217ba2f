import type { Clock } from "../ports/clock.js";
import { type ErrorDetail, FlagpostError } from "../errors.js";
import { fingerprint, runIdempotent } from "../idempotency.js";
import { errorFields, type Logger } from "../ports/logger.js";
import type { NewEvent, Storage } from "../ports/storage/index.js";
import { checkShape, parseInput, validationError } from "../validation.js";
import { decodeEventCursor, encodeEventCursor, filterHash } from "./cursor.js";
import { EventBuffer } from "./event-buffer.js";
import type { EventBufferOptions, EventBufferStats } from "./event-buffer-options.js";
import { prepareEvent } from "./event-input.js";
import { isoFromMs } from "../time.js";
import {
  type AcceptedEvent,
  boundSchema,
  type EventPage,
  eventListSchema,
  eventNameSchema,
  isBatchLength,
  type QueryEventsInput,
  queryEventsSchema,
  type TrackEventInput,
} from "./schema.js";

export interface EventTrackerOptions {
  /** The buffer behind `enqueue` (batch size, interval, bound, full-queue policy, retries). */
  buffer?: EventBufferOptions;
}

export interface TrackOptions {
  /**
   * Makes the call safe to retry: the same key with the same events within 24 h returns the first
   * answer and stores nothing new; with other events it fails with `invalid_idempotent_request`.
   */
  idempotencyKey?: string;
  /** Whose key it is (HTTP uses the API key's id). Default "in-process". */
  idempotencyScope?: string;
}

export type EnqueueResult =
  { queued: true; id: string } | { queued: false; reason: "invalid" | "full" | "closed"; error: FlagpostError };

/** The scope of Idempotency-Keys given in process without one. */
export const IN_PROCESS_SCOPE = "in-process";

/** The operation names fingerprinted with the request, so one key cannot serve both routes. */
export const TRACK_OPERATION = "events.track";
export const BATCH_OPERATION = "events.batch";

const ACCEPTED = "accepted" as const;

/** The path prefix of a single event's details: none (shared, never written to). */
const NO_PREFIX: readonly PropertyKey[] = Object.freeze([]);

/**
 * Events: `track` and `trackBatch` validate (docs/api.md, "Events") and store before they resolve;
 * `enqueue` validates and returns at once, a background flusher stores. `query` reads keyset pages,
 * newest first. Retention: `purgeBefore`, and `deleteByUser` for privacy requests.
 */
export class EventTracker {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #buffer: EventBuffer;
  #lastInvalidLog = Number.NEGATIVE_INFINITY;
  #invalidSinceLog = 0;
  #beforeFlush: (() => void) | undefined;

  constructor(storage: Storage, clock: Clock, logger: Logger, options: EventTrackerOptions = {}) {
    this.#storage = storage;
    this.#clock = clock;
    this.#logger = logger;
    this.#buffer = new EventBuffer((events) => storage.events.appendEvents(events), logger, options.buffer);
  }

  /** Stores one event; resolves once it is stored. 422 (`validation_error`) names each broken rule. */
  async track(input: TrackEventInput, options: TrackOptions = {}): Promise<AcceptedEvent> {
    const details: ErrorDetail[] = [];
    const event = prepareEvent(input, this.#clock.now(), NO_PREFIX, details);
    if (!event) throw validationError(details);
    if (options.idempotencyKey === undefined) {
      await this.#storage.events.appendEvents([event]);
      return { id: event.id, status: ACCEPTED };
    }
    return runIdempotent<AcceptedEvent>(
      this.#storage,
      this.#clock,
      this.#idempotent(TRACK_OPERATION, input, options),
      async (complete) => {
        const accepted: AcceptedEvent = { id: event.id, status: ACCEPTED };
        await this.#storage.events.appendEvents([event], complete(accepted));
        return accepted;
      },
    );
  }

  /**
   * Stores 1 to 1,000 events, all or none: one invalid event refuses the batch with details naming
   * its index (`events.3.userId`), and nothing is stored. Answers in request order.
   */
  async trackBatch(inputs: readonly TrackEventInput[], options: TrackOptions = {}): Promise<AcceptedEvent[]> {
    // The list's shape only: prepareEvent walks each event (inputProblem) on its own. A list of a
    // plainly right length passes the schema without zod visiting its 1,000 elements.
    if (!isBatchLength(inputs)) {
      const list = checkShape(eventListSchema, inputs, ["events"]);
      if (!list.ok) throw validationError(list.details);
    }
    const receiptMs = this.#clock.now();
    const details: ErrorDetail[] = [];
    const events: NewEvent[] = new Array(inputs.length);
    // One path prefix for the list, its index moved along: a detail copies it into its text at once.
    const prefix: [string, number] = ["events", 0];
    for (let i = 0; i < inputs.length; i++) {
      prefix[1] = i;
      const event = prepareEvent(inputs[i], receiptMs, prefix, details);
      if (event) events[i] = event;
    }
    if (details.length > 0) throw validationError(details);
    const accepted = events.map((e): AcceptedEvent => ({ id: e.id, status: ACCEPTED }));
    if (options.idempotencyKey === undefined) {
      await this.#storage.events.appendEvents(events);
      return accepted;
    }
    return runIdempotent<AcceptedEvent[]>(
      this.#storage,
      this.#clock,
      this.#idempotent(BATCH_OPERATION, inputs, options),
      async (complete) => {
        await this.#storage.events.appendEvents(events, complete(accepted));
        return accepted;
      },
    );
  }

  /**
   * Validates the event and queues it for the background flusher; never throws and never waits.
   * The result says whether it was queued (with its id) or why not: invalid, queue full (see
   * EventBufferOptions.whenFull) or closed. Every refusal is counted in `bufferStats()`.
   */
  enqueue(input: TrackEventInput): EnqueueResult {
    if (this.#buffer.closed)
      return {
        queued: false,
        reason: "closed",
        error: new FlagpostError("unavailable", "Events are closed: enqueue after close()"),
      };
    const details: ErrorDetail[] = [];
    let event: NewEvent | undefined;
    try {
      event = prepareEvent(input, this.#clock.now(), NO_PREFIX, details);
    } catch (error) {
      details.push({ path: "", message: `could not be read (${errorFields(error).message ?? "unknown error"})` });
    }
    if (!event) {
      this.#buffer.noteInvalid();
      const error = validationError(details);
      this.#logInvalid(error);
      return { queued: false, reason: "invalid", error };
    }
    if (!this.#buffer.push(event)) {
      if (this.#buffer.closed)
        return {
          queued: false,
          reason: "closed",
          error: new FlagpostError("unavailable", "Events are closed: enqueue after close()"),
        };
      return {
        queued: false,
        reason: "full",
        error: new FlagpostError("unavailable", "The event queue is full; the event was not queued"),
      };
    }
    return { queued: true, id: event.id };
  }

  /** Resolves once every event enqueued before the call is stored; rejects if storing fails (they stay queued). */
  flush(): Promise<void> {
    this.#beforeFlush?.();
    return this.#buffer.flush();
  }

  /**
   * Runs `hand` at the start of every flush(): the exposure recorder hands its own buffer over
   * then, so `await fp.events.flush()` stores the exposures recorded before it too.
   */
  beforeFlush(hand: () => void): void {
    this.#beforeFlush = hand;
  }

  /** The buffer's counters: queued, stored, refused, dropped, failed writes. */
  bufferStats(): EventBufferStats {
    return this.#buffer.stats();
  }

  /** Newest first; pass `nextCursor` back with the same filters for the next page. */
  async query(input: QueryEventsInput = {}): Promise<EventPage> {
    const query = parseInput(queryEventsSchema, input ?? {});
    const filters = { userId: query.userId, event: query.event, from: query.from, to: query.to };
    const hash = filterHash(filters);
    const after = query.cursor === undefined ? undefined : decodeEventCursor(query.cursor, hash);
    const rows = await this.#storage.events.queryEvents(
      { userId: query.userId, event: query.event, from: query.from, to: query.to },
      after,
      query.limit + 1, // one more than asked tells whether another page exists
    );
    const page = rows.slice(0, query.limit);
    // The port carries epoch ms; the page, as the wire, ISO 8601 text.
    const data = page.map((r) => ({
      id: r.id,
      event: r.event,
      userId: r.userId,
      timestamp: isoFromMs(r.timestamp),
      properties: r.properties,
      receivedAt: isoFromMs(r.receivedAt),
    }));
    const last = page.at(-1);
    if (rows.length <= query.limit || !last) return { data };
    return { data, nextCursor: encodeEventCursor({ ms: last.timestamp, id: last.id }, hash) };
  }

  /** Deletes every event whose timestamp is before `before` (a Date or ISO 8601 text); returns how many. */
  async purgeBefore(before: string | Date): Promise<number> {
    const ms = parseInput(boundSchema, before, ["before"]);
    return this.#storage.events.purgeEventsBefore(ms);
  }

  /** Deletes every event of this user (exact match), for privacy requests; returns how many. */
  async deleteByUser(userId: string): Promise<number> {
    const id = parseInput(eventNameSchema, userId, ["userId"]);
    return this.#storage.events.deleteEventsByUser(id);
  }

  /**
   * Stops accepting enqueued events and stores what is queued (retrying for up to
   * `buffer.closeTimeoutMs`). Rejects with `unavailable` when some could not be stored.
   */
  async close(): Promise<void> {
    const unstored = await this.#buffer.close();
    if (unstored > 0)
      throw new FlagpostError(
        "unavailable",
        `${unstored} buffered events could not be stored before close; see the log`,
      );
  }

  #idempotent(operation: string, input: unknown, options: TrackOptions) {
    return {
      scope: options.idempotencyScope ?? IN_PROCESS_SCOPE,
      key: options.idempotencyKey!,
      // A Date counts as its JSON text (canonicalJson), so in process and over HTTP compare alike
      // without serialising and parsing the events once more.
      fingerprint: fingerprint(operation, input),
    };
  }

  /** Invalid enqueued events are a caller's bug: logged, but at most once a second. */
  #logInvalid(error: FlagpostError): void {
    this.#invalidSinceLog += 1;
    const now = this.#clock.now();
    if (now - this.#lastInvalidLog < 1000) return;
    this.#logger.warn("enqueue refused an invalid event", {
      message: error.message,
      refusedSinceLastLog: this.#invalidSinceLog,
    });
    this.#lastInvalidLog = now;
    this.#invalidSinceLog = 0;
  }
}
