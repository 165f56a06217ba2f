import type { ParsedMail } from "mailparser";
import {
  classifyRecipient,
  clippedText,
  type DeliveryReport,
  type DeliveryReportType,
  firstVerpId,
  isoTime,
  normalMessageId,
  normalRecipient,
  readFields,
} from "../../src/emails/index.js";
import { field, parseHeaderBlock } from "./field-blocks.js";
import { BOUNCE_READERS, type BounceMessage, type ReaderRecipient } from "./readers/index.js";
import type { ReportMessage } from "./report-parser.js";

/**
 * Bounces without a machine-readable delivery-status part: the plain-text formats of MTAs and
 * mailbox providers. Each family's reader (adapters/inbound/readers/) finds the recipients and
 * the remote server's words; this turns what it found into DeliveryReports, classified by the
 * same rules as a DSN, and matched by VERP, Message-ID or the quoted original headers.
 */
export function plainBounceReports(mail: ParsedMail, message: ReportMessage, source: string): DeliveryReport[] {
  const bounce = bounceMessage(mail, source);
  for (const reader of BOUNCE_READERS) {
    let result;
    try {
      result = reader.read(bounce);
    } catch {
      continue; // a reader's defect must not lose the message for the next reader
    }
    if (result === undefined || result.recipients.length === 0) continue;
    const returned = result.returnedHeaders === undefined ? message.returned : parseHeaderBlock(result.returnedHeaders);
    const emailId = firstVerpId([...message.sentTo, field(returned, "return-path")]);
    const messageId = normalMessageId(field(returned, "message-id")) ?? normalMessageId(message.inReplyTo);
    const match = readFields({ emailId, messageId, occurredAt: isoTime(message.date) });
    return result.recipients.map((found) => reportOf(found, match));
  }
  return [];
}

/** One recipient's report from what a reader found; `match` says which email it is about. */
export function reportOf(found: ReaderRecipient, match: Partial<DeliveryReport>): DeliveryReport {
  const diagnostic = clippedText(found.diagnostic);
  const action = found.action ?? "failed";
  const facts = { ...found, action, ...(diagnostic === undefined ? {} : { diagnostic }) };
  const classified = classifyRecipient(facts);
  const type: DeliveryReportType = action === "delayed" ? "delayed" : action === "failed" ? "bounced" : "delivered";
  const report: DeliveryReport = {
    type,
    source: "dsn",
    action,
    reason: classified.reason,
    ...readFields({ recipient: normalRecipient(found.recipient) }),
    ...match,
    ...readFields({
      status: classified.status,
      replyCode: classified.replyCode,
      command: classified.command,
      diagnostic,
    }),
  };
  if (type === "bounced")
    report.bounce = {
      type: classified.type,
      subType: classified.subType,
      reason: classified.reason,
      message: diagnostic ?? classified.status ?? "",
    };
  return report;
}

/**
 * The message as readers see it (adapters/inbound/readers/reader.ts). When MIME yields no text
 * (a part whose boundary parameter was not folded into its header, as Verizon's gateway writes
 * it), the readers get the raw body after the header instead.
 */
export function bounceMessage(mail: ParsedMail, source = ""): BounceMessage {
  const headers = new Map<string, string[]>();
  for (const { key, line } of mail.headerLines) {
    const value = line
      .slice(line.indexOf(":") + 1)
      .replace(/\r?\n[ \t]+/g, " ")
      .trim();
    const values = headers.get(key);
    if (values) values.push(value);
    else headers.set(key, [value]);
  }
  const parts = mail.attachments.map((a) => ({
    contentType: a.contentType.toLowerCase(),
    text: a.content.toString("utf8").replace(/\r\n?/g, "\n"),
  }));
  return {
    headers,
    subject: mail.subject ?? "",
    from: mail.from?.text ?? "",
    text: ((mail.text ?? "").trim() === "" ? bodyOf(source) : (mail.text ?? "")).replace(/\r\n?/g, "\n"),
    parts,
  };
}

function bodyOf(source: string): string {
  const end = source.search(/\r?\n\r?\n/);
  return end < 0 ? "" : source.slice(end).trimStart();
}
