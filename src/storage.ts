import type { Scope } from "./auth/scopes.js";
import type { Flag } from "./flags/schema.js";

/**
 * The Storage port: the only way the core touches data. Each method is one intention, so every
 * adapter can do it the fast, safe way for its engine. Contracts are written as MUSTs; the
 * conformance suite (test/conformance/storage.suite.ts) checks each of them on every adapter.
 *
 * Conventions for every repository:
 * - Times cross the port as ISO-8601 UTC strings with millisecond precision
 *   (`Date#toISOString()`). Adapters store them as they like but MUST return them unchanged.
 *   An adapter MAY refuse a time in any other form with `FlagpostError("validation_error")`,
 *   since it could not return it unchanged.
 * - Records returned are fresh objects: callers may keep or mutate them without affecting storage.
 * - Errors an adapter cannot map to a FlagpostError code are thrown as
 *   `FlagpostError("unavailable", …, { cause })`, never as raw driver errors with SQL inside.
 */

// ---------------------------------------------------------------------------------------------
// Flags

export type FlagRecord = Flag;

export interface FlagChanges {
  description?: string;
  enabled?: boolean;
  rules?: Flag["rules"];
  updatedAt: string;
}

export interface FlagRepository {
  /**
   * Stores a new flag. MUST throw `FlagpostError("conflict")` when a flag with the same key
   * exists; when several inserts of one key race, exactly one succeeds.
   */
  insert(flag: FlagRecord): Promise<void>;

  /** The flag with this key, or undefined. Keys are case-sensitive: "A" and "a" are two flags. */
  get(key: string): Promise<FlagRecord | undefined>;

  /**
   * Up to `limit` flags whose key is strictly greater than `after` (all when omitted), ordered by
   * key in code-point (byte) order — not by a locale collation — so pages are stable everywhere.
   */
  list(options: { after?: string; limit: number }): Promise<FlagRecord[]>;

  /**
   * Applies the given fields (absent fields stay as they are) and `updatedAt`, atomically, and
   * returns the flag as stored afterwards; undefined when no flag has this key. Two concurrent
   * updates of different fields MUST both survive (no read-modify-write of the whole row).
   */
  update(key: string, changes: FlagChanges): Promise<FlagRecord | undefined>;

  /** Removes the flag; true when it existed. */
  delete(key: string): Promise<boolean>;

  /**
   * A number that changes (grows) whenever any flag is inserted, updated or deleted, in the same
   * transaction as that write. Cheap to read: other processes poll it to know their snapshot is stale.
   */
  revision(): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// API keys

export interface ApiKeyRecord {
  id: string;
  name: string;
  /** Lower-case hex SHA-256 of the plain key. The plain key is never stored. */
  hash: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt?: string;
}

export interface ApiKeyRepository {
  /** Stores a key. MUST throw `FlagpostError("conflict")` when the id or the hash exists. */
  insert(record: ApiKeyRecord): Promise<void>;
  /** The key with this hash, revoked or not; undefined when none. */
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** All keys, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** Sets revokedAt once; true when the key exists (revoking twice keeps the first time). */
  revoke(id: string, at: string): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// Idempotency (shared by every route that accepts an Idempotency-Key)

export interface IdempotencyClaim {
  /** Whose key it is: the API key id (keys are per API key), or a caller-chosen scope in process. */
  scope: string;
  key: string;
  /** Hash of what the request asks for; the same key with another fingerprint is a misuse. */
  fingerprint: string;
  now: string;
  /** Until when this claim blocks concurrent users of the key while the work runs. */
  lockedUntil: string;
  /** When the key may be reused for anything (24 h after first use). */
  expiresAt: string;
}

export type IdempotencyBegin =
  /** The caller owns the key now: do the work, then complete (or release) it. */
  | { state: "started" }
  /** The work was done before with the same fingerprint: answer with this stored result. */
  | { state: "replay"; response: unknown }
  /** The key was used with a different fingerprint. */
  | { state: "mismatch" }
  /** Another caller holds an unexpired claim on the key. */
  | { state: "in_progress" };

/** Passed to a write that must complete an idempotency claim in the same transaction. */
export interface IdempotencyCompletion {
  scope: string;
  key: string;
  /** JSON-serialisable result replayed to later callers. */
  response: unknown;
}

export interface IdempotencyRepository {
  /**
   * Claims `key` in `scope`. A record whose `expiresAt` has passed counts as absent. A pending
   * claim whose `lockedUntil` has passed (its owner crashed) MAY be taken over: the result is
   * then "started". When several callers race for one key, exactly one gets "started".
   */
  begin(claim: IdempotencyClaim): Promise<IdempotencyBegin>;
  /** Stores the result of a started claim; later `begin`s with the same fingerprint replay it. */
  complete(completion: IdempotencyCompletion): Promise<void>;
  /** Drops a pending claim (the work failed), so the key can be used again at once. */
  release(scope: string, key: string): Promise<void>;
  /** Deletes records whose `expiresAt` is before `now`; returns how many. */
  purgeExpired(now: string): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Flag change notifications (optional capability)

/** Told about flag writes committed by any process. Calls MUST NOT throw into the adapter. */
export interface FlagWatchListener {
  /** A flag write was committed (by any process, this one included). */
  changed(): void;
  /** The watch is live, the first time or again after a loss: changes made meanwhile were not reported. */
  listening(): void;
  /** The watch was lost; the adapter reconnects by itself and calls `listening` when back. */
  lost(error: unknown): void;
}

export interface FlagWatcher {
  /** Stops watching and releases the connection the watch held. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Emails (the outbox and each email's history)

export type EmailStatus = "queued" | "sent" | "delivered" | "bounced" | "failed" | "complained";

/** A status change, or `delivery_delayed`: a transient failure after which a retry is scheduled. */
export type EmailEventType = EmailStatus | "delivery_delayed";

export interface EmailTag {
  name: string;
  value: string;
}

export interface EmailAttachment {
  filename: string;
  /** Base64, as received. */
  content: string;
  contentType?: string;
}

/** What the app asked to send. Stored once, never changed. Addresses as given (`Ann <ann@example.com>`). */
export interface EmailContent {
  from: string;
  to: string[];
  cc?: string[];
  bcc?: string[];
  replyTo?: string[];
  subject: string;
  html?: string;
  text?: string;
  headers?: Record<string, string>;
  tags?: EmailTag[];
  attachments?: EmailAttachment[];
}

export interface EmailRecord {
  id: string;
  content: EmailContent;
  status: EmailStatus;
  /** The Message-ID header every send attempt of this email carries (`<id@domain>`). */
  messageId: string;
  createdAt: string;
  scheduledAt?: string;
  /** Set once, when the transport first accepted the email. */
  sentAt?: string;
  /** Set once, when delivery was reported. */
  deliveredAt?: string;
  /** How many times a worker claimed the email (each claim is one send attempt). */
  attempts: number;
  /** The email is due (claimable) from this time on while it is queued. */
  nextAttemptAt: string;
  /** The last transient failure, for people reading the record. */
  lastError?: string;
  /** The worker holding the email and until when; absent when nobody holds it. */
  leaseOwner?: string;
  leaseUntil?: string;
}

export interface EmailEvent {
  emailId: string;
  /** 1 for the `queued` event, then 2, 3, …: the order in which the events were stored. */
  seq: number;
  type: EmailEventType;
  /** When it happened (for reports from outside, the time they give). */
  at: string;
  /** JSON object: SMTP reply, per-recipient rejections, error, next attempt time. */
  detail?: Record<string, unknown>;
}

export interface NewEmailEvent {
  type: EmailEventType;
  at: string;
  detail?: Record<string, unknown>;
}

/** A status change applied by {@link EmailRepository.transitionEmail}. */
export interface EmailTransition {
  /** Applied only while the email's status is one of these. */
  from: readonly EmailStatus[];
  /**
   * Applied only while this worker holds the email's lease (a worker recording the outcome of
   * its own send). Omitted for reports from outside, which apply whoever holds the email.
   */
  leaseOwner?: string;
  to: EmailStatus;
  /** Stored only when the email has no sentAt yet: timestamps are set once. */
  sentAt?: string;
  /** Stored only when the email has no deliveredAt yet. */
  deliveredAt?: string;
  /** The event that records this change; its type is normally `to`. */
  event: NewEmailEvent;
}

/** A transient failure recorded by {@link EmailRepository.scheduleRetry}. */
export interface EmailRetry {
  /** Applied only while this worker holds the email's lease and the email is queued. */
  leaseOwner: string;
  nextAttemptAt: string;
  lastError: string;
  /** Normally `delivery_delayed`, with the error and the next attempt time. */
  event: NewEmailEvent;
}

/** One entry of {@link EmailRepository.recordOutcomes}: a status change or a retry. */
export type EmailOutcomeWrite = { id: string; transition: EmailTransition } | { id: string; retry: EmailRetry };

export interface EmailRepository {
  /**
   * Stores new emails (status `queued`, `attempts` 0, no lease) and, for each, its first event
   * `{type: "queued", at: createdAt}` with seq 1. With `completion`, the idempotency claim is
   * completed by the same write. All or nothing: when any email cannot be stored (an id that
   * exists → `FlagpostError("conflict")`), none is, and the claim stays pending. When this
   * resolves, the emails survive a crash of this process.
   */
  insertEmails(emails: EmailRecord[], completion?: IdempotencyCompletion): Promise<void>;

  /** The email with this id, or undefined. */
  getEmail(id: string): Promise<EmailRecord | undefined>;

  /**
   * Leases up to `limit` due emails to `owner` until `now + leaseMs`, adds 1 to their `attempts`,
   * and returns them (as stored afterwards), the longest-due first. Due: status `queued`,
   * `nextAttemptAt <= now`, and no lease or a lease that ended (`leaseUntil <= now`), so an
   * email whose worker crashed becomes claimable again once its lease ends. When several callers
   * claim at once, in this process or in others sharing the database, each email goes to exactly
   * one of them. PostgreSQL and MySQL use `FOR UPDATE SKIP LOCKED`; SQLite has a single writer.
   */
  claimDueEmails(now: string, limit: number, leaseMs: number, owner: string): Promise<EmailRecord[]>;

  /**
   * Atomically, and only when the email's status is one of `transition.from` (and, with
   * `leaseOwner`, that worker still holds it): sets the status, sets `sentAt`/`deliveredAt` when
   * given and not set before, releases the lease, and appends `transition.event` with the next
   * seq. Returns the email as stored afterwards; undefined when the email does not exist or a
   * condition failed, in which case nothing changed.
   */
  transitionEmail(id: string, transition: EmailTransition): Promise<EmailRecord | undefined>;

  /**
   * Atomically, and only when the email is queued and `retry.leaseOwner` holds it: sets
   * `nextAttemptAt` and `lastError`, releases the lease, and appends `retry.event`. Returns the
   * email as stored afterwards; undefined (and nothing changed) otherwise.
   */
  scheduleRetry(id: string, retry: EmailRetry): Promise<EmailRecord | undefined>;

  /**
   * Applies a worker's outcomes in one write (one transaction, one commit), each exactly as
   * {@link transitionEmail} or {@link scheduleRetry} would with its own conditions: one whose
   * condition fails changes nothing and the others still apply. Returns, in the order given,
   * whether each was applied (the records are not read back). When the write fails, none of them
   * is applied. Each id appears at most once.
   */
  recordOutcomes(outcomes: readonly EmailOutcomeWrite[]): Promise<boolean[]>;

  /** The email's events, in seq order; empty when the email does not exist. */
  listEmailEvents(id: string): Promise<EmailEvent[]>;
}

// ---------------------------------------------------------------------------------------------
// Events

/** One stored event, as queries return it. */
export interface EventRecord {
  /** A UUIDv7 (lower-case, as `uuidv7()` writes it); unique across all events. */
  id: string;
  event: string;
  userId: string;
  /** When it happened (the client's time, UTC). Queries order and filter by it. */
  timestamp: string;
  /** When flagpost accepted it. */
  receivedAt: string;
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
  timestamp: string;
  receivedAt: string;
  propertiesJson: string;
}

/** Which events a query reads. Every field is optional; given fields all apply (AND). */
export interface EventFilter {
  /** Exact, case-sensitive match (`"u1"` is neither `"U1"` nor `"u1 "`). */
  userId?: string;
  /** Exact, case-sensitive match. */
  event?: string;
  /** Inclusive lower bound on `timestamp`. */
  from?: string;
  /** Exclusive upper bound on `timestamp`. */
  to?: string;
}

/** A position in the event order: the (timestamp, id) of the last event a page returned. */
export interface EventKey {
  timestamp: string;
  id: string;
}

export interface EventRepository {
  /**
   * Stores every event of the batch, or none of them: a failure at any point (a duplicate id, a
   * refused value, a lost connection) MUST leave no event of the batch stored, whatever the batch
   * size and however the adapter splits it into statements. An id that is already stored, or that
   * appears twice in the batch, MUST fail the batch with `FlagpostError("conflict")`.
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
  purgeEventsBefore(before: string): Promise<number>;

  /**
   * Deletes every event of exactly this `userId` (case- and space-sensitive: never another user's);
   * returns how many. Same transaction rules as `purgeEventsBefore`.
   */
  deleteEventsByUser(userId: string): Promise<number>;
}

// ---------------------------------------------------------------------------------------------

export interface Storage {
  /** Short name of the backend ("memory", "sqlite", "postgres", "mysql"), for logs and reports. */
  readonly name: string;
  readonly flags: FlagRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly idempotency: IdempotencyRepository;
  readonly events: EventRepository;
  readonly emails: EmailRepository;
  /**
   * Creates or upgrades the schema. MUST be idempotent and safe when several processes call it
   * at once.
   */
  migrate(): Promise<void>;
  /**
   * Optional: pushes notice of flag writes from every process (PostgreSQL LISTEN/NOTIFY), so
   * in-process flag snapshots refresh without waiting for the next revision poll. Storages
   * without it are polled through `flags.revision()`. Closed by the caller, or by `close()`.
   */
  watchFlags?(listener: FlagWatchListener): FlagWatcher;
  /** Releases what the storage opened itself. A connection the caller passed in is not closed. */
  close(): Promise<void>;
}
