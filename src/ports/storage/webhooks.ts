import type { DomainEvent } from "./domain-events.js";
import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// Outbound webhooks: endpoints and their subscriptions

export type WebhookStatus = "enabled" | "disabled";

export interface WebhookRecord {
  /** A UUIDv7. */
  id: string;
  /** The http(s) URL deliveries are POSTed to. */
  endpoint: string;
  /** The event types it is subscribed to (at least one). */
  events: string[];
  status: WebhookStatus;
  /** `whsec_` + base64 of the key: signs every delivery. */
  secret: string;
  /** The secret before the last rotation, still signing beside `secret` until `previousSecretExpiresAt`. */
  previousSecret?: string;
  previousSecretExpiresAt?: EpochMs;
  createdAt: EpochMs;
  updatedAt: EpochMs;
  /** When the current run of failed attempts began; absent once an attempt succeeds. */
  failingSince?: EpochMs;
}

export interface WebhookChanges {
  endpoint?: string;
  /** Replaces the whole subscription list. */
  events?: string[];
  status?: WebhookStatus;
  updatedAt: EpochMs;
}

export interface SecretRotation {
  /** The new secret; the current one becomes `previousSecret` until `previousSecretExpiresAt`. */
  secret: string;
  previousSecretExpiresAt: EpochMs;
  updatedAt: EpochMs;
}

/** Newest first (id descending); `after`/`before` are ids, as Resend's cursors. */
export interface PageRequest {
  /** Items older than this id. */
  after?: string;
  /** Items newer than this id (the page nearest to it, still newest first). */
  before?: string;
  limit: number;
}

export interface WebhookRepository {
  /** Stores a new endpoint and its subscriptions. An id that exists → `FlagpostError("conflict")`. */
  insertWebhook(webhook: WebhookRecord): Promise<void>;
  getWebhook(id: string): Promise<WebhookRecord | undefined>;
  /** Up to `limit` endpoints, newest first, paged by id. */
  listWebhooks(page: PageRequest): Promise<WebhookRecord[]>;
  /**
   * Applies the given fields atomically (with `events`, the subscriptions are replaced in the same
   * transaction); `status: "enabled"` also clears `failingSince`. Undefined when unknown.
   */
  updateWebhook(id: string, changes: WebhookChanges): Promise<WebhookRecord | undefined>;
  /** Removes the endpoint, its subscriptions, deliveries and attempts; true when it existed. */
  deleteWebhook(id: string): Promise<boolean>;
  /** Moves `secret` to `previousSecret` and stores the new one, atomically. Undefined when unknown. */
  rotateSecret(id: string, rotation: SecretRotation): Promise<WebhookRecord | undefined>;
}

// ---------------------------------------------------------------------------------------------
// Outbound webhooks: deliveries (one per event and subscribed endpoint) and their attempts

/**
 * `pending`: not tried yet (or replayed); `attempting`: tried, a retry is scheduled; `success`:
 * a 2xx answer; `failed`: the retry schedule ran out, or the endpoint was disabled meanwhile.
 */
export type DeliveryStatus = "pending" | "attempting" | "success" | "failed";

export interface DeliveryRecord {
  /** A UUIDv7 of its own (the job's id); (webhookId, eventId) is unique too. */
  id: string;
  webhookId: string;
  /** The event's id: the `webhook-id` of every attempt. */
  eventId: string;
  eventType: string;
  /** The event's time. */
  createdAt: EpochMs;
  status: DeliveryStatus;
  /** Claims (each one attempt) since the delivery was stored or last replayed: picks the next wait of the schedule. */
  attempts: number;
  /** Due from this time on while pending or attempting. */
  nextAttemptAt: EpochMs;
  lastAttemptAt?: EpochMs;
  leaseOwner?: string;
  leaseUntil?: EpochMs;
}

export interface AttemptRecord {
  /** A UUIDv7. */
  id: string;
  deliveryId: string;
  webhookId: string;
  eventId: string;
  /** When the request was started. */
  sentAt: EpochMs;
  /** The HTTP status of the answer; 0 when there was none (refused, timed out, blocked). */
  statusCode: number;
  durationMs: number;
  /** The first 1 KiB of the answer's body, or why there was no answer. */
  response: string;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery extends DeliveryRecord {
  event: DomainEvent;
  webhook: WebhookRecord;
}

/** What one attempt (or the decision not to make one) means for a delivery and its endpoint. */
export interface DeliveryOutcome {
  /** The delivery's id. */
  id: string;
  webhookId: string;
  /** Applied only while this worker holds the delivery's lease. */
  leaseOwner: string;
  /** Stored in the attempts list; absent when no request was made (endpoint disabled meanwhile). */
  attempt?: AttemptRecord;
  /** `attempting` carries the next attempt's time. */
  next: { status: "success" } | { status: "attempting"; nextAttemptAt: EpochMs } | { status: "failed" };
  /**
   * The endpoint's health: a success clears `failingSince`; a failure sets it when absent and,
   * when it is at or before `disableIfFailingSince` (5 days ago), disables the endpoint.
   */
  endpoint?: { succeeded: true } | { failedAt: EpochMs; disableIfFailingSince: EpochMs };
}

/** Per-endpoint fairness for a claim: what the claiming worker already holds of each endpoint. */
export interface DeliveryClaimCap {
  perWebhook: number;
  /** Deliveries of each endpoint the caller holds now (queued, being sent, or being recorded). */
  busy: ReadonlyMap<string, number>;
}

export interface WebhookDeliveryRepository {
  /**
   * Leases up to `limit` due deliveries to `owner` until `now + leaseMs`, adds 1 to their
   * `attempts`, and returns them with their event and endpoint, the longest-due first. Due:
   * pending or attempting, `nextAttemptAt <= now`, and no lease or an ended one. Each goes to
   * exactly one caller across processes (`FOR UPDATE SKIP LOCKED` on PostgreSQL/MySQL; SQLite's
   * single writer). With `cap`, MUST take no delivery of an endpoint whose `busy` count is already
   * `perWebhook` or more, and at most `perWebhook − busy` of any other (busy counts 0 when absent),
   * so one endpoint's backlog cannot fill a claim while others' deliveries are due.
   */
  claimDueDeliveries(
    now: EpochMs,
    limit: number,
    leaseMs: number,
    owner: string,
    cap?: DeliveryClaimCap,
  ): Promise<ClaimedDelivery[]>;
  /** Extends to `until` the leases `owner` still holds among `ids`; returns those ids. */
  renewDeliveryLeases(ids: readonly string[], owner: string, until: EpochMs): Promise<string[]>;
  /** The distinct owners of delivery leases that have not ended at `now` (pending or attempting deliveries). */
  listDeliveryLeaseOwners(now: EpochMs): Promise<string[]>;
  /**
   * MUST free every lease held by one of `owners` (processes known to be dead) on pending or
   * attempting deliveries, so they are due at once; `attempts` is kept. Returns how many were freed.
   */
  releaseDeliveryLeases(owners: readonly string[]): Promise<number>;
  /**
   * Applies outcomes in one transaction, each only while its `leaseOwner` holds the delivery:
   * stores the attempt, sets the status (and next attempt time), releases the lease and updates
   * the endpoint's health. Returns, in order, whether each applied. Each delivery at most once.
   */
  recordDeliveryOutcomes(outcomes: readonly DeliveryOutcome[]): Promise<boolean[]>;
  /** The endpoint's deliveries, newest event first, paged by event id. */
  listDeliveries(webhookId: string, page: PageRequest): Promise<DeliveryRecord[]>;
  /** One delivery with its event; undefined when unknown. */
  getDelivery(
    webhookId: string,
    eventId: string,
  ): Promise<{ delivery: DeliveryRecord; event: DomainEvent } | undefined>;
  /**
   * Makes the delivery due again at `now` (status `pending`, `attempts` 0), keeping its event and
   * so its `webhook-id`. An ended lease is released; a lease still running at `now` MUST be kept:
   * an attempt is under way, its holder's outcome still applies (and answers the replay), and
   * nobody claims the delivery twice meanwhile. Returns it as stored afterwards; undefined when unknown.
   */
  replayDelivery(webhookId: string, eventId: string, now: EpochMs): Promise<DeliveryRecord | undefined>;
  /**
   * How many deliveries are still to be made (`pending` or `attempting`), for GET /metrics and the
   * overview: one count over the claim index (status, next_attempt_at). Optional, like outboxDepth.
   */
  countPendingDeliveries?(): Promise<number>;
  /** The delivery's attempts, newest first, paged by attempt id. */
  listAttempts(webhookId: string, eventId: string, page: PageRequest): Promise<AttemptRecord[]>;
  /**
   * MUST call `listener` after each write made through this storage object that stored at least
   * one delivery, once that write has committed (so a claim made from the listener sees them),
   * and not for writes that stored none. Writes of other processes are not reported: the worker
   * finds those by polling. Returns the function that unsubscribes.
   */
  onDeliveriesStored(listener: () => void): () => void;
}
