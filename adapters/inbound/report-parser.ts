import { type Attachment, type ParsedMail, simpleParser } from "mailparser";
import type { DeliveryReport, ReportParser } from "../../src/internal.js";
import { arfReports } from "./arf-report.js";
import { dsnReports } from "./dsn-report.js";
import { type FieldBlock, parseHeaderBlock } from "./field-blocks.js";
import { plainBounceReports } from "./plain-bounce.js";

/**
 * A ReportParser over mailparser: it reads the MIME structure of a report message and hands the
 * machine-readable part to the DSN (RFC 3464) or ARF (RFC 5965) reader. Anything that is not a
 * `multipart/report` of those two types — a plain-text bounce, an auto-reply, a read receipt,
 * garbage — gives `[]`; so does any failure of the parser: a report source never throws.
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
  const mail = await simpleParser(
    typeof raw === "string" ? Buffer.from(raw, "utf8") : Buffer.from(raw),
    PARSER_OPTIONS,
  );
  const contentType = mail.headers.get("content-type") as { value?: unknown; params?: Record<string, unknown> };
  const message = reportMessage(mail);
  if (String(contentType?.value).toLowerCase() === "multipart/report") {
    const reportType = String(contentType.params?.["report-type"] ?? "").toLowerCase();
    if (reportType === "delivery-status") {
      const part = mail.attachments.find((a) => STATUS_TYPES.has(a.contentType.toLowerCase()));
      if (part) return dsnReports(text(part), message);
    }
    if (reportType === "feedback-report") {
      const part = mail.attachments.find((a) => a.contentType.toLowerCase() === "message/feedback-report");
      if (part) return arfReports(text(part), message);
    }
  }
  return plainBounceReports(mail, message);
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
