import { type DeliveryReport, firstVerpId, isoTime, normalMessageId, normalRecipient } from "../../src/emails/index.js";
import { field, parseFieldBlocks } from "./field-blocks.js";
import type { ReportMessage } from "./report-parser.js";

/**
 * RFC 5965 feedback reports: a recipient (or their mailbox provider's feedback loop) says the
 * message was unwanted. One report per Original-Rcpt-To (one without a recipient when the
 * provider redacted it, as Microsoft and Yahoo often do).
 *
 * Feedback types that are not complaints give nothing: `auth-failure` is a DMARC/SPF failure
 * report about a message somebody else may have forged (RFC 6591), and `not-spam` says the
 * opposite of a complaint. `abuse`, `fraud`, `virus` and `other` are complaints.
 */
const NOT_COMPLAINTS = new Set(["auth-failure", "not-spam"]);

/** At most this many recipients are read from one report. */
const MAX_RECIPIENTS = 100;

export function arfReports(feedbackPart: string, message: ReportMessage): DeliveryReport[] {
  const fields = parseFieldBlocks(feedbackPart)[0];
  const feedbackType = field(fields, "feedback-type")?.toLowerCase();
  if (feedbackType === undefined || NOT_COMPLAINTS.has(feedbackType)) return [];
  const emailId = firstVerpId([
    field(fields, "original-mail-from"),
    field(message.returned, "return-path"),
    ...message.sentTo,
  ]);
  const messageId = normalMessageId(field(message.returned, "message-id"));
  const occurredAt =
    isoTime(message.date) ?? isoTime(field(fields, "arrival-date")) ?? isoTime(field(fields, "received-date"));
  const recipients = new Set<string>();
  for (const value of fields?.get("original-rcpt-to") ?? []) {
    const recipient = normalRecipient(value);
    if (recipient !== undefined && recipients.size < MAX_RECIPIENTS) recipients.add(recipient);
  }
  if (recipients.size === 0) {
    // Without Original-Rcpt-To, the returned message's To names the recipient when it names one.
    const to = field(message.returned, "to");
    const only = to !== undefined && !to.includes(",") ? normalRecipient(to) : undefined;
    if (only !== undefined) recipients.add(only);
  }
  const base: DeliveryReport = { type: "complained", source: "arf", feedbackType };
  if (emailId !== undefined) base.emailId = emailId;
  if (messageId !== undefined) base.messageId = messageId;
  if (occurredAt !== undefined) base.occurredAt = occurredAt;
  if (recipients.size === 0) return [base];
  return [...recipients].map((recipient) => ({ ...base, recipient }));
}
