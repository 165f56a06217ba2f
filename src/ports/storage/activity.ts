import type { EpochMs } from "./instants.js";
import type { WebhookStatus } from "./webhooks.js";

// ---------------------------------------------------------------------------------------------
// Activity: counts across emails, events and webhook endpoints, for the overview (GET /v1/overview)

/** One time bucket of {@link ActivityRepository.countEmailActivity}. */
export interface EmailActivityBucket {
  /** The bucket's start: a multiple of the bucket size since the epoch. */
  start: EpochMs;
  /** Emails handed on in the bucket: their `sentAt` (set once, whether the transport said sent or delivered). */
  sent: number;
  /** `bounced` email events stored with their `at` in the bucket: one per bounced recipient report. */
  bounced: number;
  /** `complained` email events with their `at` in the bucket: one per complaint. */
  complained: number;
}

/** One time bucket of {@link ActivityRepository.countEvents}. */
export interface EventCountBucket {
  start: EpochMs;
  /** Events whose `timestamp` falls in the bucket. */
  count: number;
}

/** An endpoint in a run of failed attempts ({@link ActivityRepository.listFailingWebhooks}). */
export interface FailingWebhook {
  id: string;
  endpoint: string;
  status: WebhookStatus;
  failingSince: EpochMs;
}

export interface ActivityRepository {
  /**
   * Sends, bounces and complaints with their time in [`from`, `to`), counted per bucket of
   * `bucketMs` milliseconds aligned to the epoch (an hour: 3,600,000). Only buckets with some count
   * are returned, oldest first. `bucketMs` MUST be a positive whole number of milliseconds.
   * An adapter SHOULD read each count from an index on its time column, so the cost grows with
   * the rows in the window, not with the table (the overview asks on every page view).
   */
  countEmailActivity(from: EpochMs, to: EpochMs, bucketMs: number): Promise<EmailActivityBucket[]>;
  /** Events with their `timestamp` in [`from`, `to`), per bucket as above; only non-empty buckets, oldest first. */
  countEvents(from: EpochMs, to: EpochMs, bucketMs: number): Promise<EventCountBucket[]>;
  /**
   * Up to `limit` endpoints that have `failingSince` (enabled or disabled), the longest failing
   * first (ties by id).
   */
  listFailingWebhooks(limit: number): Promise<FailingWebhook[]>;
}
