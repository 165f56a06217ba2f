import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import {
  commandIn,
  cutAt,
  type Found,
  header,
  linesOf,
  quotedHeaders,
  type ReasonTable,
  recipientOf,
  resultOf,
} from "./common.js";

/**
 * The Courier mail server, read from its notice when the delivery-status part is missing:
 * "This is a delivery status notification from host, running the Courier mail server", a framed
 * "UNDELIVERABLE MAIL" (or "DELAYS IN DELIVERING YOUR MESSAGE") with "<address>:" and the SMTP
 * dialogue below it (">>> RCPT TO:<…>", "<<< 550 …").
 */

const REASONS: ReasonTable = {
  hostunknown: ["No such domain."],
  systemerror: ["This domain's DNS violates RFC 1035."],
  networkerror: ["DNS lookup failed."],
};

function isCourier(message: BounceMessage): boolean {
  return (
    message.from.includes("Courier mail server at ") ||
    message.subject.includes("NOTICE: mail delivery status.") ||
    message.subject.includes("WARNING: delayed mail.") ||
    header(message, "message-id").startsWith("<courier.")
  );
}

function read(message: BounceMessage): ReaderResult | undefined {
  if (!isCourier(message)) return undefined;
  const { notice, quoted } = cutAt(message.text, ["Content-Type: message/rfc822", "Content-Type: text/rfc822-headers"]);
  const lines = linesOf(notice);
  const start = lines.findIndex((line) => /UNDELIVERABLE MAIL|DELAYS IN DELIVERING YOUR MESSAGE/.test(line));
  if (start < 0) return undefined;
  const delayed = (lines[start] ?? "").includes("DELAYS");
  const found: Found[] = [];
  let current: Found | undefined;
  for (const line of lines.slice(start + 1)) {
    if (/^-{20,}$/.test(line.trim()) && found.length > 0) break;
    const address = /^<([^<>\s]+@[^<>\s]+)>:$/.exec(line);
    if (address) {
      current = { recipient: address[1], diagnostic: "", action: delayed ? "delayed" : "failed" };
      found.push(current);
    } else if (current && line.startsWith(">>> ")) current.command = commandIn(line.slice(4).split(":")[0] ?? "");
    else if (current && line.startsWith("<<< ")) current.diagnostic = `${current.diagnostic ?? ""} ${line.slice(4)}`;
  }
  return resultOf(
    found.map((f) => recipientOf(f, REASONS)),
    quotedHeaders(quoted, message),
  );
}

export const courierReader: BounceReader = { name: "courier", read };
