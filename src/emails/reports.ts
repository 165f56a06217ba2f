import { z } from "zod";
import { REPORT_SOURCE_NAME } from "./report-sources.js";

/**
 * Delivery reports from the mail system: what a DSN (RFC 3464), an ARF feedback report
 * (RFC 5965) or a provider's webhook (SES, SendGrid, Mailgun, Postmark) says happened to one
 * recipient of one email. Every source is parsed into this one shape, and one service method
 * applies it along the lifecycle (docs/emails.md), so all sources end in the same transition.
 */

/** What happened, in the lifecycle's words. `auto_replied`: a vacation or out-of-office answer (changes nothing). */
export type DeliveryReportType = "delivered" | "bounced" | "delayed" | "complained" | "auto_replied";

/** The RFC 3464 Action of one recipient, as the reporting server wrote it (or read from its words). */
export type DeliveryAction = "delivered" | "relayed" | "delayed" | "failed" | "expanded";

/**
 * Why a recipient's delivery ended as it did, in the names the Sisimai project uses (the reference
 * classifier for bounce mail), plus `feedback` (a complaint), `vacation` and `delivered`.
 */
export const BOUNCE_REASONS = [
  "userunknown",
  "hostunknown",
  "hasmoved",
  "notaccept",
  "mailboxfull",
  "mesgtoobig",
  "exceedlimit",
  "filtered",
  "rejected",
  "blocked",
  "spamdetected",
  "virusdetected",
  "policyviolation",
  "securityerror",
  "authfailure",
  "requireptr",
  "badreputation",
  "failedstarttls",
  "notcompliantrfc",
  "toomanyconn",
  "speeding",
  "norelaying",
  "suspend",
  "expired",
  "systemerror",
  "systemfull",
  "networkerror",
  "contenterror",
  "syntaxerror",
  "mailererror",
  "onhold",
  "undefined",
  "feedback",
  "vacation",
  "delivered",
] as const;
export type BounceReason = (typeof BOUNCE_REASONS)[number];

/** A bounce as emails and webhooks carry it (Resend's payload, with the reason and every recipient). */
export interface BounceSummary {
  type: "Permanent" | "Transient" | "Undetermined";
  subType: string;
  reason?: BounceReason;
  message: string;
}

/**
 * Where the report came from: `dsn` or `arf` for mail read by a ReportParser, else the name of the
 * ReportSource that received it (`ses`, `sendgrid`, `mailgun`, `postmark`, or an app's own). Not a
 * closed list: sources are registered, not enumerated here (src/emails/report-sources.ts).
 */
export type DeliveryReportSource = string;

export interface DeliveryReport {
  type: DeliveryReportType;
  source: DeliveryReportSource;
  /** The recipient the report is about (the DSN's Final-Recipient, the ARF's Original-Rcpt-To…), lower-cased. */
  recipient?: string;
  /**
   * How to find the email, best first: the email id from a VERP envelope (`bounces+<id>@…`),
   * the original `Message-ID` (with angle brackets, as sent), or the provider's own message id.
   */
  emailId?: string;
  messageId?: string;
  providerMessageId?: string;
  /** When the reporting system says it happened (ISO-8601 UTC); the time of receipt when absent. */
  occurredAt?: string;
  /** Bounces: hard (`Permanent`) or soft (`Transient`) by reason, as Resend's payload names them. */
  bounce?: BounceSummary;
  /** The recipient's Action (RFC 3464), when the report gives or implies one. */
  action?: DeliveryAction;
  /** Why, in Sisimai's names (see BOUNCE_REASONS). */
  reason?: BounceReason;
  /** The DSN status (`5.1.1`) or the provider's code, when given. */
  status?: string;
  /** The SMTP reply code the remote server answered (`550`), when the report quotes it. */
  replyCode?: string;
  /** The SMTP command the remote server refused (`RCPT`, `DATA`, `MAIL`, `CONN`, `EHLO`…), when known. */
  command?: string;
  /** The remote server's words (Diagnostic-Code, the provider's reason), at most 1 KiB. */
  diagnostic?: string;
  /** Complaints: the ARF Feedback-Type (`abuse`, `fraud`…) or the provider's. */
  feedbackType?: string;
}

const REPORT_TYPES = ["delivered", "bounced", "delayed", "complained", "auto_replied"] as const;
const ACTIONS = ["delivered", "relayed", "delayed", "failed", "expanded"] as const;
const text = (max: number) => z.string().max(max);

/**
 * A DeliveryReport as `applyReports` accepts it: the fields above, each bounded (a parser's output
 * is stored as it is, in events and in the unmatched reports).
 */
export const deliveryReportSchema = z.object({
  type: z.enum(REPORT_TYPES),
  source: z.string().regex(REPORT_SOURCE_NAME, "must be a report source's name (lower-case letters, digits, dashes)"),
  recipient: text(320).optional(),
  emailId: text(255).optional(),
  messageId: text(998).optional(),
  providerMessageId: text(255).optional(),
  occurredAt: text(64).optional(),
  bounce: z
    .object({
      type: z.enum(["Permanent", "Transient", "Undetermined"]),
      subType: text(64),
      reason: z.enum(BOUNCE_REASONS).optional(),
      message: text(1024),
    })
    .optional(),
  action: z.enum(ACTIONS).optional(),
  reason: z.enum(BOUNCE_REASONS).optional(),
  status: text(32).optional(),
  replyCode: text(8).optional(),
  command: text(16).optional(),
  diagnostic: text(1024).optional(),
  feedbackType: text(64).optional(),
}) satisfies z.ZodType<DeliveryReport>;
