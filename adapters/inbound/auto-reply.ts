import type { ParsedMail } from "mailparser";
import {
  clippedText,
  type DeliveryReport,
  firstVerpId,
  isoTime,
  normalMessageId,
  normalRecipient,
  readFields,
} from "../../src/emails/index.js";
import type { ReportMessage } from "./report-parser.js";

/**
 * Answers a person's mailbox sent by itself: an auto-reply (RFC 3834 `Auto-Submitted:
 * auto-replied`, Microsoft's and Apple's vacation headers, an "Automatic reply:" subject) is one
 * `auto_replied` report with reason `vacation`, which changes nothing; Apple Mail's "unsubscribe"
 * message (`X-Apple-Unsubscribe: true`, sent to a `List-Unsubscribe` mailto address) is the
 * recipient asking for no more mail: an `opt-out` complaint. Both are tried only after every bounce
 * format, since bounces carry `Auto-Submitted` too, and never for mail from a mailer daemon.
 */

/** Subject prefixes of auto-replies (lower case), as Exchange, Apple Mail, Gmail and others write them. */
const SUBJECT_PREFIXES = [
  "auto:",
  "auto reply:",
  "auto-reply:",
  "autoreply:",
  "auto response:",
  "autoresponse:",
  "automatic reply:",
  "automatische antwort:",
  "réponse automatique:",
  "out of office:",
  "out of the office:",
  "out of office reply:",
  "vacation:",
  "away:",
];
/** Senders that are never a person's mailbox: their messages are notices, not vacation replies. */
const DAEMON_SENDERS = /^(?:mailer-daemon|postmaster|root|double-bounce)@/i;

function header(mail: ParsedMail, name: string): string {
  return (
    mail.headerLines
      .find((h) => h.key === name)
      ?.line.slice(name.length + 1)
      .trim() ?? ""
  );
}

function isAutoReply(mail: ParsedMail): boolean {
  const submitted = header(mail, "auto-submitted").toLowerCase();
  if (submitted.startsWith("auto-replied")) return true;
  if (header(mail, "x-autoreply") !== "" || header(mail, "x-autorespond") !== "") return true;
  if (header(mail, "precedence").toLowerCase() === "auto_reply") return true;
  if (header(mail, "x-apple-action").toLowerCase() === "vacation") return true;
  const subject = (mail.subject ?? "").trim().toLowerCase();
  return SUBJECT_PREFIXES.some((prefix) => subject.startsWith(prefix));
}

/** The address that answered: From, else Reply-To. */
function senderOf(mail: ParsedMail): string | undefined {
  return normalRecipient(mail.from?.value[0]?.address) ?? normalRecipient(mail.replyTo?.value[0]?.address);
}

function matchOf(mail: ParsedMail, message: ReportMessage) {
  const references = Array.isArray(mail.references) ? mail.references[0] : mail.references;
  return readFields({
    emailId: firstVerpId(message.sentTo),
    messageId: normalMessageId(message.inReplyTo) ?? normalMessageId(references),
    occurredAt: isoTime(message.date),
  });
}

/** `isReport`: the message is a `multipart/report` of some type, which no person's mailbox writes. */
export function autoReplyReports(mail: ParsedMail, message: ReportMessage, isReport: boolean): DeliveryReport[] {
  const recipient = senderOf(mail);
  if (isReport || recipient === undefined || DAEMON_SENDERS.test(recipient) || !isAutoReply(mail)) return [];
  const diagnostic = clippedText(mail.subject);
  return [
    {
      type: "auto_replied",
      source: "dsn",
      reason: "vacation",
      recipient,
      ...matchOf(mail, message),
      ...readFields({ diagnostic }),
    },
  ];
}

export function unsubscribeReports(mail: ParsedMail, message: ReportMessage): DeliveryReport[] {
  if (header(mail, "x-apple-unsubscribe").toLowerCase() !== "true") return [];
  const recipient = senderOf(mail);
  if (recipient === undefined) return [];
  return [{ type: "complained", source: "arf", feedbackType: "opt-out", recipient, ...matchOf(mail, message) }];
}
