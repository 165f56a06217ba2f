import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { type Found, header, isAddress, openNotice, type ReasonTable, receivedBy, reportOf } from "./common.js";

/**
 * OpenSMTPD (smtpd/bounce.c): an indented notice ("Hi! This is the MAILER-DAEMON, please DO NOT
 * REPLY…"), then one unindented line per recipient, "address: the error", then "Below is a copy of
 * the original message:". A delay warning says "A message is delayed for more than…".
 */

/** OpenSMTPD's own error texts (smtpd/mta.c, queue.c), by the reason each decides. */
const REASONS: ReasonTable = {
  expired: ["Envelope expired"],
  securityerror: ["Could not retrieve credentials"],
  hostunknown: ["Invalid domain name", "Domain does not exist"],
  notaccept: ["Destination seem to reject all mails", "No MX found for domain", "No MX found for destination"],
  networkerror: [
    "Address family mismatch on destination MXs",
    "All routes to destination blocked",
    "bad DNS lookup error code",
    "Could not retrieve source address",
    "Loop detected",
    "Network error on destination MXs",
    "No valid route to remote MX",
    "No valid route to destination",
    "Temporary failure in MX lookup",
  ],
};

function isOpenSmtpd(message: BounceMessage): boolean {
  return (
    message.subject.includes("Delivery status notification") ||
    message.from.includes("Mailer Daemon <") ||
    receivedBy(message, " (OpenSMTPD) with ") ||
    header(message, "from").includes("Mailer Daemon <")
  );
}

function read(message: BounceMessage): ReaderResult | undefined {
  if (!isOpenSmtpd(message)) return undefined;
  const opened = openNotice(message, ["Below is a copy of the original message:"], (line) =>
    line.trimStart().startsWith("This is the MAILER-DAEMON, please DO NOT REPLY"),
  );
  if (opened === undefined) return undefined;
  const delayed = opened.notice.includes("A message is delayed for more than");
  const found: Found[] = [];
  for (const line of opened.after) {
    const colon = line.indexOf(": ");
    if (line.startsWith(" ") || colon < 0 || !isAddress(line.slice(0, colon))) continue;
    found.push({
      recipient: line.slice(0, colon),
      diagnostic: line.slice(colon + 2),
      action: delayed ? "delayed" : "failed",
    });
  }
  return reportOf(found, opened.quoted, message, REASONS);
}

export const opensmtpdReader: BounceReader = { name: "opensmtpd", read };
