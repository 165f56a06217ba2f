import { type Attachment, type ParsedMail, simpleParser } from "mailparser";
import type { DeliveryReport } from "../../src/emails/index.js";
import type { ReportParser } from "../../src/ports/report-parser.js";
import { arfReports } from "./arf-report.js";
import { autoReplyReports, unsubscribeReports } from "./auto-reply.js";
import { dsnReports } from "./dsn-report.js";
import { embeddedStatusReports } from "./embedded-report.js";
import { type FieldBlock, parseHeaderBlock } from "./field-blocks.js";
import { withLineFeeds } from "./line-ends.js";
import { plainBounceReports } from "./plain-bounce.js";
import { sesNotificationReports } from "./ses-notification.js";

/**
 * A ReportParser over mailparser: it reads the MIME structure of a report message and finds what
 * it reports, most machine-readable first:
 * 1. a `message/feedback-report` part (RFC 5965) or a `message/delivery-status` part (RFC 3464)
 *    wherever it sits: in a `multipart/report` with or without `report-type`, inside
 *    `multipart/mixed` (McAfee, OpenSMTPD), nested deeper;
 * 2. delivery-status fields written into the text, as a broken `multipart/report` whose boundary
 *    does not match its parts (or has none) leaves them;
 * 3. the plain-text bounce of an MTA or mailbox provider (adapters/inbound/readers/);
 * 4. an Amazon SES notification mailed as JSON (by SNS to an email subscription);
 * 5. an unsubscribe or an auto-reply (vacation, out-of-office), which changes nothing.
 * A read receipt or anything else gives `[]`; so does any failure of the parser: a report source
 * never throws.
 */
export function mailReportParser(): ReportParser {
  return {
    parse: async (raw) => {
      try {
        return await parseReport(raw);
      } catch {
        return [];
      }
    },
  };
}

/** What the readers need from the message around the report part. */
export interface ReportMessage {
  /** The addresses the report was sent to, best first (Delivered-To, X-Original-To, To). */
  sentTo: string[];
  /** The report's own Date. */
  date: Date | undefined;
  /** The report's In-Reply-To: Gmail and Microsoft point it at the message they report on. */
  inReplyTo: string | undefined;
  /** The header block of the returned message (or returned headers), when the report carries one. */
  returned: FieldBlock | undefined;
  /** The report's human-readable text (it names the refused SMTP command, which the fields do not). */
  notification: string;
}

const PARSER_OPTIONS = {
  keepDeliveryStatus: true, // the delivery-status part as bytes, not folded into the text
  ignoreEmbedded: true, // returned messages as bytes too, even with an inline disposition
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipTextLinks: true,
  skipImageLinks: true,
  checksumAlgo: false,
  maxHtmlLengthToParse: 0,
} as const;

const STATUS_TYPES = new Set(["message/delivery-status", "message/global-delivery-status"]);
const RETURNED_TYPES = new Set(["message/rfc822", "text/rfc822-headers", "message/global", "message/global-headers"]);

async function parseReport(raw: string | Uint8Array): Promise<DeliveryReport[]> {
  const bytes = withLineFeeds(typeof raw === "string" ? Buffer.from(raw, "utf8") : Buffer.from(raw));
  const mail = await simpleParser(bytes, PARSER_OPTIONS);
  const message = reportMessage(mail);
  const contentType = mail.headers.get("content-type") as { value?: unknown; params?: Record<string, unknown> };
  const reportType = String(contentType?.params?.["report-type"] ?? "").toLowerCase();
  // A read receipt (RFC 8098) is a report, but of reading, not of delivery.
  if (reportType === "disposition-notification") return [];

  const feedback = mail.attachments.find((a) => a.contentType.toLowerCase() === "message/feedback-report");
  // An ARF part decides alone: an auth-failure report is not a complaint, and not a bounce either.
  if (feedback) return arfReports(text(feedback), message);
  const status = mail.attachments.find((a) => STATUS_TYPES.has(a.contentType.toLowerCase()));
  if (status) {
    const reports = dsnReports(text(status), message);
    // A status part without recipient blocks ("Delivery report unavailable"): the text may say more.
    if (reports.length > 0) return reports;
  }
  const source = bytes.toString("utf8");
  for (const next of [
    () => embeddedStatusReports(mail.text ?? "", message),
    () => embeddedStatusReports(source, message),
    () => plainBounceReports(mail, message, source),
    () => sesNotificationReports(mail, message),
    () => unsubscribeReports(mail, message),
    () => autoReplyReports(mail, message, reportType !== ""),
  ]) {
    const reports = next();
    if (reports.length > 0) return reports;
  }
  return [];
}

function text(part: Attachment): string {
  return part.content.toString("utf8");
}

const SENT_TO_HEADERS = ["delivered-to", "x-original-to", "to"];

function reportMessage(mail: ParsedMail): ReportMessage {
  const sentTo: string[] = [];
  for (const name of SENT_TO_HEADERS) {
    for (const { key, line } of mail.headerLines) {
      if (key === name) sentTo.push(line.slice(line.indexOf(":") + 1).trim());
    }
  }
  const returnedPart = mail.attachments.find((a) => RETURNED_TYPES.has(a.contentType.toLowerCase()));
  return {
    sentTo,
    date: mail.date,
    inReplyTo: typeof mail.inReplyTo === "string" ? mail.inReplyTo : undefined,
    returned: returnedPart ? parseHeaderBlock(text(returnedPart)) : undefined,
    notification: (mail.text ?? "").replace(/\r\n?/g, "\n"),
  };
}
