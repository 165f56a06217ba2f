import type { DeliveryReport } from "../../src/emails/index.js";
import { dsnReports } from "./dsn-report.js";
import { parseHeaderBlock } from "./field-blocks.js";
import type { ReportMessage } from "./report-parser.js";

/**
 * Delivery-status fields that no MIME part holds: a `multipart/report` whose boundary parameter
 * does not match the boundary lines (MIME then sees one empty part), or one written with no
 * boundaries at all (old Sendmail), or a status part nested in a message declared `text/plain`.
 * The fields are still there, at the start of lines; this finds them in the raw message and reads
 * them as the delivery-status part they were meant to be.
 *
 * It needs a recipient field (`Final-Recipient` or `Original-Recipient`) at the start of a line;
 * the region read starts at the `Reporting-MTA` line before it, when there is one nearby, and ends
 * at the first line that is no field (a boundary, the returned message's body, prose).
 */

const RECIPIENT_FIELD = /^(?:final-recipient|original-recipient)[ \t]*:/im;
const REPORTING_MTA = /^reporting-mta[ \t]*:/gim;
const FIELD_LINE = /^[!-9;-~]+[ \t]*:/;
const RETURNED_PART = /^content-type:[ \t]*(?:message\/rfc822|text\/rfc822-headers|message\/global)/im;
const RETURNED_HEADERS = /^(?:return-path|received|message-id)[ \t]*:/im;
/** How far before the first recipient field the per-message fields may start, and how long the region may be. */
const PER_MESSAGE_REACH = 4 * 1024;
const MAX_REGION = 256 * 1024;

export function embeddedStatusReports(source: string, message: ReportMessage): DeliveryReport[] {
  const first = RECIPIENT_FIELD.exec(source);
  if (first === null) return [];
  const start = perMessageStart(source, first.index);
  const end = regionEnd(source, first.index);
  const rest = source.slice(first.index, Math.min(source.length, first.index + MAX_REGION));
  return dsnReports(source.slice(start, end), { ...message, returned: message.returned ?? returnedBlock(rest) });
}

function perMessageStart(source: string, recipientAt: number): number {
  REPORTING_MTA.lastIndex = Math.max(0, recipientAt - PER_MESSAGE_REACH);
  let start = recipientAt;
  for (let found = REPORTING_MTA.exec(source); found !== null && found.index < recipientAt;) {
    start = found.index; // the last Reporting-MTA before the recipient field
    found = REPORTING_MTA.exec(source);
  }
  return start;
}

/** Where the status fields stop: the first line after `from` that is neither a field, nor folded, nor blank. */
function regionEnd(source: string, from: number): number {
  const limit = Math.min(source.length, from + MAX_REGION);
  let at = from;
  while (at < limit) {
    let next = source.indexOf("\n", at);
    if (next < 0 || next > limit) next = limit;
    const line = source.slice(at, next).replace(/\r$/, "");
    const folded = line.startsWith(" ") || line.startsWith("\t");
    if (line.trim() !== "" && !folded && (line.startsWith("--") || !FIELD_LINE.test(line))) return at;
    at = next + 1;
  }
  return limit;
}

/** The returned message's header block after the status fields, if one is recognisable there. */
function returnedBlock(rest: string) {
  const part = RETURNED_PART.exec(rest);
  if (part !== null) {
    const body = rest.slice(part.index).search(/\r?\n\r?\n/);
    if (body >= 0) return parseHeaderBlock(rest.slice(part.index + body).replace(/^\s+/, ""));
  }
  const headers = RETURNED_HEADERS.exec(rest);
  return headers === null ? undefined : parseHeaderBlock(rest.slice(headers.index));
}
