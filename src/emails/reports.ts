import { z } from "zod";

/**
 * Delivery reports from the mail system: what a DSN (RFC 3464), an ARF feedback report
 * (RFC 5965) or a provider's webhook (SES, SendGrid, Mailgun, Postmark) says happened to one
 * recipient of one email. Every source is parsed into this one shape, and one service method
 * applies it along the lifecycle (docs/emails.md), so all sources end in the same transition.
 */

/** What happened, in the lifecycle's words. */
export type DeliveryReportType = "delivered" | "bounced" | "delayed" | "complained";

/** Where the report came from. */
export type DeliveryReportSource = "dsn" | "arf" | "ses" | "sendgrid" | "mailgun" | "postmark";

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
  /** Bounces: `Permanent` (5.x.x, hard) or `Transient` (4.x.x, soft), as Resend's payload names them. */
  bounce?: { type: "Permanent" | "Transient" | "Undetermined"; subType: string; message: string };
  /** The DSN status (`5.1.1`) or the provider's code, when given. */
  status?: string;
  /** The remote server's words (Diagnostic-Code, the provider's reason), at most 1 KiB. */
  diagnostic?: string;
  /** Complaints: the ARF Feedback-Type (`abuse`, `fraud`…) or the provider's. */
  feedbackType?: string;
}

/**
 * Turns one raw report message (a whole RFC 5322 message, as received) into the reports it holds:
 * a DSN gives one per recipient, an ARF report one. A message that is not a report gives `[]`;
 * the parser never throws on bad input.
 */
export interface ReportParser {
  parse(raw: string | Uint8Array): Promise<DeliveryReport[]>;
}

const REPORT_TYPES = ["delivered", "bounced", "delayed", "complained"] as const;
const REPORT_SOURCES = ["dsn", "arf", "ses", "sendgrid", "mailgun", "postmark"] as const;
const text = (max: number) => z.string().max(max);

/**
 * A DeliveryReport as `applyReports` accepts it: the fields above, each bounded (a parser's output
 * is stored as it is, in events and in the unmatched reports).
 */
export const deliveryReportSchema = z.object({
  type: z.enum(REPORT_TYPES),
  source: z.enum(REPORT_SOURCES),
  recipient: text(320).optional(),
  emailId: text(255).optional(),
  messageId: text(998).optional(),
  providerMessageId: text(255).optional(),
  occurredAt: text(64).optional(),
  bounce: z
    .object({ type: z.enum(["Permanent", "Transient", "Undetermined"]), subType: text(64), message: text(1024) })
    .optional(),
  status: text(32).optional(),
  diagnostic: text(1024).optional(),
  feedbackType: text(64).optional(),
}) satisfies z.ZodType<DeliveryReport>;
