import type { DomainEvent } from "./domain-events.js";
import type { EmailClaimStore } from "./email-claims.js";
import type { EmailReputationStore } from "./email-reputation.js";
import type { IdempotencyCompletion } from "./idempotency.js";
import type { PageRequest } from "./webhooks.js";
import type { EpochMs } from "./instants.js";

// Emails: the outbox and each email's history.
export type EmailStatus = "queued" | "sent" | "delivered" | "bounced" | "failed" | "complained" | "canceled";

/**
 * A status change, or one of the events that are not statuses: `scheduled` (accepted for later),
 * `delivery_delayed` (a transient failure after which a retry is scheduled, or a report that
 * delivery is late), `suppressed` (every recipient is on the suppression list; the status is
 * `failed`), `auto_replied` (a vacation or out-of-office answer), `paused` (its domain is paused).
 */
export type EmailEventType = EmailStatus | "delivery_delayed" | "scheduled" | "suppressed" | "auto_replied" | "paused";

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
  createdAt: EpochMs;
  scheduledAt?: EpochMs;
  /** Set once, when the transport first accepted the email. */
  sentAt?: EpochMs;
  /** Set once, when delivery was reported. */
  deliveredAt?: EpochMs;
  /** How many times a worker claimed the email (each claim is one send attempt). */
  attempts: number;
  /** The email is due (claimable) from this time on while it is queued. */
  nextAttemptAt: EpochMs;
  /** The last transient failure, for people reading the record. */
  lastError?: string;
  /** Why a `failed` email failed, in a word: `suppressed`, `retry_budget_spent`, `permanent_error`. */
  failureReason?: string;
  /**
   * The id the next hop gave the message when it differs from `messageId` (a provider API's
   * message id): how a provider's delivery report names the email.
   */
  providerMessageId?: string;
  /** The type of the newest event; absent while the email has only its first one (`queued` or `scheduled`). */
  lastEvent?: EmailEventType;
  /** The worker holding the email and until when; absent when nobody holds it. */
  leaseOwner?: string;
  leaseUntil?: EpochMs;
}

/** How {@link EmailRepository.claimDueEmails} returns large emails. */
export interface ClaimEmailOptions {
  /** Content stored larger than this is left out of the claimed record (see claimDueEmails). */
  maxContentBytes?: number;
}

/**
 * A claimed email. When `omittedContentBytes` is set, `content` holds only the headline (from,
 * to, cc, bcc, replyTo, subject) and the whole content, that large, is read with `getEmail`.
 */
export interface ClaimedEmail extends EmailRecord {
  omittedContentBytes?: number;
}

/** What a list shows of an email's content: no bodies, headers or attachments. */
export type EmailHeadline = Pick<EmailContent, "from" | "to" | "cc" | "bcc" | "replyTo" | "subject">;

/** An email as a list shows it. */
export interface EmailListEntry extends Omit<EmailRecord, "content"> {
  content: EmailHeadline;
}

/** A new time for a scheduled email, applied by {@link EmailRepository.rescheduleEmail}. */
export interface EmailReschedule {
  /** Becomes both `scheduledAt` and `nextAttemptAt`. */
  scheduledAt: EpochMs;
  /** Applied only while no worker holds the email (no lease, or one ended at this time). */
  unleasedAt: EpochMs;
  /** Normally `scheduled`, with the new time. */
  event: NewEmailEvent;
  events?: readonly DomainEvent[];
}

export interface EmailEvent {
  emailId: string;
  /** 1 for the `queued` event, then 2, 3, …: the order in which the events were stored. */
  seq: number;
  type: EmailEventType;
  /** When it happened (for reports from outside, the time they give). */
  at: EpochMs;
  /** JSON object: SMTP reply, per-recipient rejections, error, next attempt time. */
  detail?: Record<string, unknown>;
}

export interface NewEmailEvent {
  type: EmailEventType;
  at: EpochMs;
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
  sentAt?: EpochMs;
  /** Stored only when the email has no deliveredAt yet. */
  deliveredAt?: EpochMs;
  /** Applied only while no worker holds the email (no lease, or an ended one): a cancel must not race a send. */
  unleasedAt?: EpochMs;
  /** Stored with the change (a `failed` email's reason). */
  failureReason?: string;
  /** Stored with the change, when the transport named the message its own way. */
  providerMessageId?: string;
  /**
   * The event that records this change; its type is normally `to`. The status may stay the same
   * (`from: ["sent"], to: "sent"`) for an event that changes nothing else, such as a report that
   * one of several recipients got the email.
   */
  event: NewEmailEvent;
  /** Recorded without becoming the email's `lastEvent` (an auto-reply says nothing about delivery). */
  keepLastEvent?: boolean;
  /** Domain events (`email.sent`, …) stored in the same transaction, only when the change applies. */
  events?: readonly DomainEvent[];
}

/** A transient failure recorded by {@link EmailRepository.scheduleRetry}. */
export interface EmailRetry {
  /** Applied only while this worker holds the email's lease and the email is queued. */
  leaseOwner: string;
  nextAttemptAt: EpochMs;
  lastError: string;
  /** Normally `delivery_delayed`, with the error and the next attempt time. */
  event: NewEmailEvent;
  /** Domain events (`email.delivery_delayed`) stored in the same transaction, only when the retry applies. */
  events?: readonly DomainEvent[];
}

/**
 * {@link EmailRepository.outboxDepth}'s answer. `held`: queued mail of a domain the reputation
 * guard paused, due or not (a claim skips it: in neither `due` nor `scheduled`, and not aging
 * the outbox). `oldestDueAt` is absent when nothing claimable is due.
 */
export interface OutboxDepth {
  due: number;
  scheduled: number;
  held: number;
  oldestDueAt?: EpochMs;
}

/** One entry of {@link EmailRepository.recordOutcomes}: a status change or a retry. */
export type EmailOutcomeWrite = { id: string; transition: EmailTransition } | { id: string; retry: EmailRetry };

export interface EmailRepository extends EmailReputationStore, EmailClaimStore {
  /**
   * Stores new emails (status `queued`, `attempts` 0, no lease) and, for each, its first event with seq 1: `{type:
   * "scheduled", at: createdAt}` when it has a `scheduledAt`, else `{type: "queued", at: createdAt}`. With
   * `completion`, the idempotency claim is completed by the same write, and `events` (domain events: `email.scheduled`)
   * are stored by it too. All or nothing: when any email cannot be stored (an id that exists →
   * `FlagpostError("conflict")`), none is, and the claim stays pending. When this resolves, the emails survive a crash
   * of this process.
   */
  insertEmails(
    emails: EmailRecord[],
    completion?: IdempotencyCompletion,
    events?: readonly DomainEvent[],
  ): Promise<void>;

  /** The email with this id, or undefined. */
  getEmail(id: string): Promise<EmailRecord | undefined>;

  /**
   * Up to `page.limit` emails, newest first (id descending), paged by id, with their headline only: a list never reads
   * bodies or attachments.
   */
  listEmails(page: PageRequest): Promise<EmailListEntry[]>;

  /**
   * Atomically, and only while the email is queued, has a `scheduledAt` and no worker holds it: sets `scheduledAt` and
   * `nextAttemptAt` to `change.scheduledAt` and appends `change.event` (its domain events in the same transaction). The
   * email as stored afterwards; undefined (and nothing changed) otherwise.
   */
  rescheduleEmail(id: string, change: EmailReschedule): Promise<EmailRecord | undefined>;

  /** The email the transport named `providerMessageId` (stored by a transition), or undefined. */
  findEmailByProviderMessageId(providerMessageId: string): Promise<EmailRecord | undefined>;

  /**
   * Leases up to `limit` due emails to `owner` until `now + leaseMs`, adds 1 to their `attempts`, and returns them (as
   * stored afterwards), the longest-due first. Due: status `queued`, `nextAttemptAt <= now`, no lease or an ended one
   * (a crashed worker's email is claimable again), not from a paused domain (email-reputation.ts). Each email goes to
   * one of concurrent callers, here or elsewhere: PostgreSQL and MySQL use `FOR UPDATE SKIP LOCKED`; SQLite has one
   * writer.
   *
   * With `options.maxContentBytes`, an email whose stored content is larger than that MUST come back without it:
   * `content` is then its headline (as a list shows it) and `omittedContentBytes` the stored content's size, and the
   * caller reads the whole email (`getEmail`) when it sends it. So a claim of many large emails does not bring all
   * their attachments into memory at once. Sizes are the stored JSON's length (characters on SQLite and PostgreSQL,
   * bytes on MySQL).
   */
  claimDueEmails(
    now: EpochMs,
    limit: number,
    leaseMs: number,
    owner: string,
    options?: ClaimEmailOptions,
  ): Promise<ClaimedEmail[]>;

  /**
   * Heartbeat: extends to `leaseUntil` the leases `owner` holds among `ids` (queued emails whose lease owner is
   * `owner`) and returns those ids, in any order. An email whose outcome was recorded meanwhile, or that another worker
   * took over after the lease ended, is left alone and left out. A worker renews while its process lives, so leases can
   * be short: a crashed process's emails are free again within one lease.
   */
  renewEmailLeases(ids: readonly string[], owner: string, leaseUntil: EpochMs): Promise<string[]>;

  /** The distinct owners of leases that have not ended at `now`, on queued emails. */
  listEmailLeaseOwners(now: EpochMs): Promise<string[]>;

  /**
   * Frees every lease held by one of `owners` on a queued email (their process is known to be dead), so the emails are
   * due again at once; `attempts` is kept. Returns how many were freed.
   */
  releaseEmailLeases(owners: readonly string[]): Promise<number>;

  /**
   * Atomically, and only when the email's status is one of `transition.from` (and, with `leaseOwner`, that worker still
   * holds it; with `unleasedAt`, nobody does): sets the status, sets `sentAt`/`deliveredAt` when given and not set
   * before, stores `failureReason` and `providerMessageId` when given, releases the lease, appends `transition.event`
   * with the next seq and makes its type the email's `lastEvent`. Returns the email as stored afterwards; undefined
   * when the email does not exist or a condition failed, in which case nothing changed.
   */
  transitionEmail(id: string, transition: EmailTransition): Promise<EmailRecord | undefined>;

  /**
   * Atomically, and only when the email is queued and `retry.leaseOwner` holds it: sets `nextAttemptAt` and
   * `lastError`, releases the lease, and appends `retry.event` (its type becomes `lastEvent`). Returns the email as
   * stored afterwards; undefined (and nothing changed) otherwise.
   */
  scheduleRetry(id: string, retry: EmailRetry): Promise<EmailRecord | undefined>;

  /**
   * Applies a worker's outcomes in one write (one transaction, one commit), each exactly as {@link transitionEmail} or
   * {@link scheduleRetry} would with its own conditions: one whose condition fails changes nothing and the others still
   * apply. Returns, in the order given, whether each was applied (the records are not read back). When the write fails,
   * none of them is applied. Each id appears at most once.
   */
  recordOutcomes(outcomes: readonly EmailOutcomeWrite[]): Promise<boolean[]>;

  /**
   * The outbox at `now` (GET /metrics): queued emails whose time has come (`due`) and those scheduled later, and the
   * oldest due email's `nextAttemptAt`. Optional: a storage without it has no outbox series.
   */
  outboxDepth?(now: EpochMs): Promise<OutboxDepth>;

  /** The email's events, in seq order; empty when the email does not exist. */
  listEmailEvents(id: string): Promise<EmailEvent[]>;

  /**
   * Deletes content written more than an hour before `now` for an email whose row never committed (a failed insert, a
   * process that died between a large email's slices and its row); returns how many pieces. Optional: nothing to purge
   * for a storage that writes each email in one piece.
   */
  purgeOrphanContent?(now: EpochMs): Promise<number>;
}
