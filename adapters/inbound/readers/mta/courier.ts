import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import {
  addWords,
  ATTACHED_ORIGINAL,
  commandIn,
  type Found,
  header,
  openNotice,
  type ReasonTable,
  reportOf,
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
  const opened = openNotice(message, ATTACHED_ORIGINAL, (line) =>
    /UNDELIVERABLE MAIL|DELAYS IN DELIVERING YOUR MESSAGE/.test(line),
  );
  if (opened === undefined) return undefined;
  const delayed = opened.opening.includes("DELAYS");
  const found: Found[] = [];
  let current: Found | undefined;
  for (const line of opened.after) {
    if (/^-{20,}$/.test(line.trim()) && found.length > 0) break;
    const address = /^<([^<>\s]+@[^<>\s]+)>:$/.exec(line);
    if (address) {
      current = { recipient: address[1], diagnostic: "", action: delayed ? "delayed" : "failed" };
      found.push(current);
    } else if (current && line.startsWith(">>> ")) current.command = commandIn(line.slice(4).split(":")[0] ?? "");
    else if (current && line.startsWith("<<< ")) addWords(current, line.slice(4));
  }
  return reportOf(found, opened.quoted, message, REASONS);
}

export const courierReader: BounceReader = { name: "courier", read };
