import type { IdempotencyCompletion } from "./idempotency.js";
import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// Events

/** One stored event, as queries return it. */
export interface EventRecord {
  /** A UUIDv7 (lower-case, as `uuidv7()` writes it); unique across all events. */
  id: string;
  event: string;
  userId: string;
  /** When it happened (the client's time). Queries order and filter by it. */
  timestamp: EpochMs;
  /** When flagpost accepted it. */
  receivedAt: EpochMs;
  properties: Record<string, unknown>;
}

/**
 * An event to append. `propertiesJson` is the JSON text of the properties object, serialised once
 * by the service (which checked its size on this very text); adapters store it as is.
 */
export interface NewEvent {
  id: string;
  event: string;
  userId: string;
  timestamp: EpochMs;
  receivedAt: EpochMs;
  propertiesJson: string;
}

/** Which events a query reads. Every field is optional; given fields all apply (AND). */
export interface EventFilter {
  /** Exact, case-sensitive match (`"u1"` is neither `"U1"` nor `"u1 "`). */
  userId?: string;
  /** Exact, case-sensitive match. */
  event?: string;
  /** Inclusive lower bound on `timestamp`. */
  from?: EpochMs;
  /** Exclusive upper bound on `timestamp`. */
  to?: EpochMs;
}

/** A position in the event order: the (timestamp, id) of the last event a page returned. */
export interface EventKey {
  timestamp: EpochMs;
  id: string;
}

export interface EventRepository {
  /**
   * Stores every event of the batch, or none of them: a failure at any point (a duplicate id, a
   * refused value, a lost connection) MUST leave no event of the batch stored, whatever the batch
   * size and however the adapter splits it into statements. An id that is already stored, or that
   * appears twice in the batch, MUST fail the batch with `FlagpostError("conflict")`. A time that is
   * not a whole number of milliseconds (a fraction, NaN) MUST fail it with "validation_error", here
   * and in every method below.
   * When `completion` is given, the idempotency claim is completed in the same transaction: the
   * events and the stored response become visible together or not at all.
   */
  appendEvents(events: readonly NewEvent[], completion?: IdempotencyCompletion): Promise<void>;

  /**
   * Up to `limit` events matching `filter`, newest first: ordered by `timestamp` descending, then by
   * `id` descending (ids compared in code-point order). With `after`, only events strictly after that
   * key in this order, i.e. `timestamp < after.timestamp`, or an equal timestamp and `id < after.id`.
   * Keyset pagination: a walk page by page returns every event that existed when the walk began
   * exactly once, however many events are appended meanwhile, and never any event twice.
   */
  queryEvents(filter: EventFilter, after: EventKey | undefined, limit: number): Promise<EventRecord[]>;

  /**
   * Deletes every event whose `timestamp` is strictly before `before`; returns how many. An adapter
   * MAY delete in several transactions (so a large purge does not hold locks for long): an
   * interrupted purge has deleted only events it was asked to, and can simply run again.
   */
  purgeEventsBefore(before: EpochMs): Promise<number>;

  /**
   * Deletes every event of exactly this `userId` (case- and space-sensitive: never another user's);
   * returns how many. Same transaction rules as `purgeEventsBefore`.
   */
  deleteEventsByUser(userId: string): Promise<number>;
}
