import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { addressIn, commandIn, cutAt, type Found, header, linesOf, type ReasonTable, reportOf } from "./common.js";

/**
 * Ipswitch IMail Server ("SMTP32"): "Undeliverable Mail", one line per recipient, "reason: address"
 * ("Unknown user: x@y", "Delivery failed 20 attempts: x@y", "undeliverable to x@y"), an optional
 * "Body of message generated response:" with the remote server's answer, then "Original message
 * follows.".
 */

const REASONS: ReasonTable = {
  hostunknown: ["Unknown host"],
  userunknown: ["Unknown user", "Invalid final delivery userid"],
  mailboxfull: ["User mailbox exceeds allowed size"],
  virusdetected: ["Requested action not taken: virus detected"],
  spamdetected: ["Blacklisted URL in message"],
  expired: ["Delivery failed "],
};

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.subject.startsWith("Undeliverable Mail") && !header(message, "x-mailer").startsWith("<SMTP32 v"))
    return undefined;
  const { notice, quoted } = cutAt(message.text, ["Original message follows."]);
  const found: Found[] = [];
  let response = "";
  for (const line of linesOf(notice)) {
    const colon = line.indexOf(": ");
    if ((colon > 8 && line.slice(colon).includes("@")) || line.startsWith("undeliverable ")) {
      found.push({ recipient: addressIn(line), diagnostic: line });
    } else if (line.includes("Body of message generated response:")) response = line;
    else if (response !== "") response = `${response} ${line}`;
  }
  const answered = found
    .filter((f) => f.recipient !== undefined)
    .map((f) => {
      const diagnostic = `${response} ${f.diagnostic ?? ""}`;
      const command = commandIn(diagnostic);
      return { ...f, diagnostic, ...(command === undefined ? {} : { command }) };
    });
  return reportOf(answered, quoted, message, REASONS);
}

export const imailserverReader: BounceReader = { name: "imailserver", read };
