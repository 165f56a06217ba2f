import type { ColumnType, Kysely } from "kysely";

/**
 * The flagpost tables as Kysely sees them. Every name starts with `flagpost_` so the tables sit
 * beside an application's own. Times are BIGINT epoch milliseconds; drivers hand integers back as
 * number, string (pg's int8) or bigint (better-sqlite3 with safeIntegers), hence the wide read types.
 */

type Int = ColumnType<number | string | bigint, number, number>;
type Bool = ColumnType<boolean | number, boolean | number, boolean | number>;

export interface FlagsTable {
  key: string;
  id: string;
  description: string;
  enabled: Bool;
  /** JSON text of the rule list. */
  rules: string;
  /** JSON text of the variant list; null on flags stored before migration 0010 (no variants). */
  variants: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Int;
  updated_at: Int;
  /** JSON text of the prerequisite list; NULL (rows older than migration 0009) means none. */
  prerequisites: string | null;
}

/** One row per flag write (migration 0009). `actor` and `changes` are JSON text. */
export interface FlagHistoryTable {
  id: string;
  flag_key: string;
  action: string;
  at: Int;
  actor: string;
  changes: string;
}

/** Evaluation counts per flag, hour (epoch ms of its start) and result (migration 0009). */
export interface FlagInsightsTable {
  flag_key: string;
  hour: Int;
  result: string;
  count: Int;
  /** The newest evaluation these counts include. */
  last_at: Int;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  hash: string;
  /** JSON text of the scope list. */
  scopes: string;
  created_at: Int;
  revoked_at: ColumnType<number | string | bigint | null, number | null, number | null>;
}

export interface IdempotencyTable {
  /** SHA-256 hex of [scope, key]: exact, fixed-length, free of collation and index-length limits. */
  id: string;
  scope: string;
  idempotency_key: string;
  fingerprint: string;
  locked_until: Int;
  expires_at: Int;
  completed: Bool;
  /** JSON text of the stored result; null while pending. */
  response: string | null;
  created_at: Int;
}

/** Named counters, e.g. the flags revision. */
export interface MetaTable {
  name: string;
  value: Int;
}

type NullableInt = ColumnType<number | string | bigint | null, number | null, number | null>;

/** The outbox: one row per email (migration 0003-emails). */
export interface EmailsTable {
  id: string;
  status: string;
  /** JSON text of the EmailContent (addresses, subject, bodies, headers, tags, attachments). */
  content: string;
  message_id: string;
  created_at: Int;
  scheduled_at: NullableInt;
  sent_at: NullableInt;
  delivered_at: NullableInt;
  attempts: Int;
  next_attempt_at: Int;
  last_error: string | null;
  lease_owner: string | null;
  lease_until: NullableInt;
  /** The seq of the email's last event; bumped by every transition, under the row lock. */
  version: Int;
  /** Migration 0012: the newest event's type; null while the email has only its first event. */
  last_event: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 0012: why a failed email failed. */
  failure_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 0012: the transport's own id for the message, when it differs from message_id. */
  provider_message_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 0012-email-summary: JSON text of the headline (EmailHeadline); null on older rows. */
  summary: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 0020: the `from` domain (sendingDomainOf); null on older rows. */
  sending_domain: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 0020: `bounce` or `complaint` once such a report was applied (the reputation guard). */
  reputation_mark: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * Migration 0023: the bytes of the email's slices in flagpost_email_content_slices, whose
   * strings `content` leaves out (email-content-slices.ts); null when `content` holds everything.
   */
  content_slice_bytes: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
}

/** Migration 0023: a slice (at most 1 MiB) of a large email's content, in `seq` order from 0. */
export interface EmailContentSlicesTable {
  email_id: string;
  seq: Int;
  bytes: Uint8Array;
  created_at: Int;
}

export interface EmailEventsTable {
  email_id: string;
  seq: Int;
  type: string;
  at: Int;
  /** JSON text of the detail object, or null. */
  detail: string | null;
}

/**
 * Events, newest first by (ts, id) (migration 0022-event-names). `id` is 16 bytes (PostgreSQL: uuid,
 * given as text); `name_id` is the event name's id in flagpost_event_names; `received_at` is NULL
 * when it equals the time the UUIDv7 id carries; `properties` is JSON text of an object (JSONB on
 * SQLite, read through json()), NULL for an empty object.
 */
export interface EventsTable {
  id: string | Uint8Array;
  /** The event's own time (epoch ms, UTC). */
  ts: Int;
  received_at: NullableInt;
  name_id: Int;
  user_id: string;
  properties: string | null;
}

/** The dictionary of event names (migration 0022-event-names). MySQL gives `name` as its UTF-8 bytes. */
export interface EventNamesTable {
  /** Assigned by the database. */
  id: ColumnType<number | string | bigint, never, never>;
  name: string | Uint8Array;
}

/** Outbound webhook endpoints (migration 0008-webhooks). `events` is JSON text of the type list. */
export interface WebhooksTable {
  id: string;
  endpoint: string;
  events: string;
  status: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: NullableInt;
  created_at: Int;
  updated_at: Int;
  failing_since: NullableInt;
}

/** Which endpoints want which event type: the index the domain-event writes look up. */
export interface WebhookSubscriptionsTable {
  event_type: string;
  webhook_id: string;
}

/** Domain events with at least one delivery; `data` is JSON text of the payload's data. */
export interface WebhookEventsTable {
  id: string;
  type: string;
  created_at: Int;
  data: string;
}

/** One row per event and endpoint: a jobs-shaped table (due time, lease owner, lease end). */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  created_at: Int;
  status: string;
  attempts: Int;
  next_attempt_at: Int;
  last_attempt_at: NullableInt;
  lease_owner: string | null;
  lease_until: NullableInt;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  sent_at: Int;
  status_code: Int;
  duration_ms: Int;
  response: string;
}

/**
 * Scheduled flag changes (migration 0014-flag-schedules): a jobs-shaped table (job-claims.ts).
 * `changes`, `created_by` are JSON text; `at` and the times are epoch ms.
 */
export interface FlagSchedulesTable {
  id: string;
  flag_key: string;
  at: Int;
  changes: string;
  status: string;
  created_at: Int;
  created_by: string;
  attempts: Int;
  next_attempt_at: Int;
  lease_owner: string | null;
  lease_until: NullableInt;
  finished_at: NullableInt;
  failure_reason: string | null;
  failure_message: string | null;
}

/** The suppression list (migration 0012): `email` is the lower-cased address, unique. */
export interface SuppressionsTable {
  id: string;
  email: string;
  origin: string;
  source_id: string | null;
  created_at: Int;
  /** Migration 0018: why a bounce or complaint put the address here. */
  reason: string | null;
  bounce_type: string | null;
  diagnostic: string | null;
}

/** Soft bounces counted for the opt-in soft-bounce suppression (migration 0018), unique by (email, email_id). */
export interface SoftBouncesTable {
  id: string;
  email: string;
  email_id: string;
  at: Int;
}

/** Small named values the deployment shares (migration 0018). */
export interface SettingsTable {
  name: string;
  value: string;
}

/** Delivery reports that matched no email (migration 0012); `report` is JSON text. */
export interface UnmatchedReportsTable {
  id: string;
  received_at: Int;
  reason: string;
  report: string;
}

/** The database as every repository queries it. */
export type Db = Kysely<FlagpostTables>;

export interface FlagpostTables {
  flagpost_flags: FlagsTable;
  flagpost_flag_history: FlagHistoryTable;
  flagpost_flag_insights: FlagInsightsTable;
  flagpost_flag_schedules: FlagSchedulesTable;
  flagpost_api_keys: ApiKeysTable;
  flagpost_idempotency: IdempotencyTable;
  flagpost_meta: MetaTable;
  flagpost_events: EventsTable;
  flagpost_event_names: EventNamesTable;
  flagpost_emails: EmailsTable;
  flagpost_email_events: EmailEventsTable;
  flagpost_email_content_slices: EmailContentSlicesTable;
  flagpost_suppressions: SuppressionsTable;
  flagpost_soft_bounces: SoftBouncesTable;
  flagpost_settings: SettingsTable;
  flagpost_unmatched_reports: UnmatchedReportsTable;
  flagpost_webhooks: WebhooksTable;
  flagpost_webhook_subscriptions: WebhookSubscriptionsTable;
  flagpost_webhook_events: WebhookEventsTable;
  flagpost_webhook_deliveries: WebhookDeliveriesTable;
  flagpost_webhook_attempts: WebhookAttemptsTable;
}

export const FLAGS_REVISION = "flags_revision";
