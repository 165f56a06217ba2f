import type { PageRequest } from "./webhooks.js";
import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// The suppression list: addresses flagpost no longer mails (hard bounces, complaints, by hand)

/**
 * Why an address is on the list, as the resend SDK's `SuppressionOrigin` names it, and
 * `unsubscribe` for a one-click unsubscribe through flagpost's own link (RFC 8058).
 */
export type SuppressionOrigin = "bounce" | "complaint" | "manual" | "unsubscribe";

export interface SuppressionRecord {
  /** A UUIDv7. */
  id: string;
  /** The bare address, lower-cased: addresses compare case-insensitively. Unique. */
  email: string;
  origin: SuppressionOrigin;
  /** The email whose bounce, complaint or unsubscribe link put the address here; absent for manual entries. */
  sourceId?: string;
  createdAt: EpochMs;
  /** Bounces: the report's reason in Sisimai's names (`userunknown`, `mailboxfull`…), `feedback` for a complaint. */
  reason?: string;
  /** Bounces: `Permanent`, or `Transient` for an address suppressed after repeated soft bounces. */
  bounceType?: string;
  /** The remote server's words (at most 1 KiB), as the report gave them. */
  diagnostic?: string;
}

/** One soft bounce of one address, counted for the opt-in soft-bounce suppression. */
export interface SoftBounceRecord {
  /** A UUIDv7. */
  id: string;
  /** The bare address, lower-cased. */
  email: string;
  /** The email that bounced. */
  emailId: string;
  at: EpochMs;
}

export interface SuppressionFilter {
  origin?: SuppressionOrigin;
}

/**
 * Reads of the list, and the soft-bounce counter. Entries are added and removed in a unit of work
 * (unit-of-work.ts, SuppressionRowStore), where the core stores their domain events.
 */
export interface SuppressionRepository {
  /** The entry with this id, or for this (lower-cased) address; undefined when none. */
  getSuppression(idOrEmail: string): Promise<SuppressionRecord | undefined>;

  /** Up to `page.limit` entries, newest first (id descending), paged by id, optionally of one origin. */
  listSuppressions(filter: SuppressionFilter, page: PageRequest): Promise<SuppressionRecord[]>;

  /**
   * Stores one soft bounce and answers how many soft bounces of its address are stored at or
   * after `since` (this one included). Soft bounces older than `since` MAY be deleted meanwhile.
   * A second call with the same `emailId` and address counts once.
   */
  countSoftBounce(bounce: SoftBounceRecord, since: EpochMs): Promise<number>;

  /** Which of these (lower-cased) addresses are on the list, in any order, without repeats. */
  suppressedAmong(emails: readonly string[]): Promise<string[]>;
}
