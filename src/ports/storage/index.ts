/**
 * The Storage port: the only way the core touches data. Each method is one intention, so every
 * adapter can do it the fast, safe way for its engine. Contracts are written as MUSTs; the
 * conformance suite (adapters/testing/storage.suite.ts) checks each of them on every adapter.
 *
 * Conventions for every repository:
 * - Times cross the port as epoch milliseconds (`EpochMs`, instants.ts), as `Date.now()` gives
 *   them; adapters MUST return them unchanged and MAY refuse anything but a whole number of
 *   milliseconds with `FlagpostError("validation_error")`. ISO text is for the wire only.
 * - Records returned are fresh objects: callers may keep or mutate them without affecting storage.
 * - Errors an adapter cannot map to a FlagpostError code are thrown as
 *   `FlagpostError("unavailable", …, { cause })`, never as raw driver errors with SQL inside.
 */

import type { ActivityRepository } from "./activity.js";
import type { ApiKeyRepository } from "./api-keys.js";
import type { DeliveryReportRepository } from "./delivery-reports.js";
import type { DomainRepository } from "./domains.js";
import type { EmailRepository } from "./emails.js";
import type { EventRepository } from "./events.js";
import type { FlagHistoryRepository } from "./flag-history.js";
import type { FlagScheduleRepository } from "./flag-schedules.js";
import type { FlagInsightRepository } from "./flag-insights.js";
import type { ExperimentRepository } from "./experiments.js";
import type { FlagRepository, FlagWatcher, FlagWatchListener } from "./flags.js";
import type { IdempotencyRepository } from "./idempotency.js";
import type { SettingsRepository } from "./settings.js";
import type { SuppressionRepository } from "./suppressions.js";
import type { StorageTransaction } from "./unit-of-work.js";
import type { WebhookDeliveryRepository, WebhookRepository } from "./webhooks.js";

export type { EpochMs } from "./instants.js";
export type * from "./activity.js";
export type * from "./api-keys.js";
export type * from "./delivery-reports.js";
export type * from "./domain-events.js";
export type * from "./domains.js";
export type * from "./emails.js";
export type * from "./email-claims.js";
export type * from "./email-reputation.js";
export type * from "./events.js";
export type * from "./flag-history.js";
export type * from "./flag-schedules.js";
export type * from "./flag-insights.js";
export type * from "./experiments.js";
export type * from "./flags.js";
export type * from "./idempotency.js";
export type * from "./settings.js";
export type * from "./suppressions.js";
export type * from "./unit-of-work.js";
export type * from "./webhooks.js";

// ---------------------------------------------------------------------------------------------

export interface Storage {
  /** Short name of the backend ("memory", "sqlite", "postgres", "mysql"), for logs and reports. */
  readonly name: string;
  /** Reads flags; writes go through `transaction` (src/flags/store/flag-writes.ts composes them). */
  readonly flags: FlagRepository;
  /** Read side of the flag history; entries are appended inside the flag write's transaction. */
  readonly flagHistory: FlagHistoryRepository;
  /** Scheduled flag changes; applied by a flag update that completes them in its transaction. */
  readonly flagSchedules: FlagScheduleRepository;
  /** Evaluation counts per flag, hour and result, added by every process's flag client. */
  readonly flagInsights: FlagInsightRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly idempotency: IdempotencyRepository;
  readonly events: EventRepository;
  readonly emails: EmailRepository;
  /** Addresses flagpost no longer mails. */
  readonly suppressions: SuppressionRepository;
  /** Small named values the deployment shares: the generated server secret (VERP tags). */
  readonly settings: SettingsRepository;
  /** Delivery reports that matched no email. */
  readonly deliveryReports: DeliveryReportRepository;
  readonly experiments: ExperimentRepository;
  /** Outbound webhook endpoints and their subscriptions. */
  readonly webhooks: WebhookRepository;
  /** Deliveries of domain events to endpoints: stored by the writes that cause them, sent by the worker. */
  readonly webhookDeliveries: WebhookDeliveryRepository;
  /** Sending domains: DKIM keys, the DNS records to publish and their verification. */
  readonly domains: DomainRepository;
  /** Counts across emails, events and webhook endpoints over time, for the overview. */
  readonly activity: ActivityRepository;
  /**
   * The unit of work: runs `fn` with repositories bound to one transaction and commits when it
   * resolves; when it throws, nothing it wrote is kept and the error reaches the caller (a driver
   * error as a FlagpostError, like any repository's). `fn` MUST
   * only touch storage through `tx` (a backend MAY run it again after a deadlock it broke, so
   * anything else it does must be safe to repeat). Transactions that write flag rows are
   * serialized against each other (see FlagRowStore).
   */
  transaction<T>(fn: (tx: StorageTransaction) => Promise<T>): Promise<T>;
  /**
   * Creates or upgrades the schema. MUST be idempotent and safe when several processes call it
   * at once.
   */
  migrate(): Promise<void>;
  /**
   * Optional: the migrations this code knows that the storage has not run (empty when the schema
   * is current). MUST read the storage, so that it also shows the storage answers (`GET /ready`
   * calls it), and MUST reject with `FlagpostError("unavailable")` when the storage cannot answer.
   * Storages without a schema (memory) leave it out and count as always current.
   */
  pendingMigrations?(): Promise<string[]>;
  /**
   * Optional: pushes notice of flag writes from every process (PostgreSQL LISTEN/NOTIFY), so
   * in-process flag snapshots refresh without waiting for the next revision poll. Storages
   * without it are polled through `flags.revision()`. Closed by the caller, or by `close()`.
   */
  watchFlags?(listener: FlagWatchListener): FlagWatcher;
  /** Releases what the storage opened itself. A connection the caller passed in is not closed. */
  close(): Promise<void>;
}
