import type { BounceReason } from "../../../../src/emails/index.js";
import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { addWords, type Found, header, headers, isAddress, openNotice, reportOf } from "./common.js";

/**
 * Microsoft Exchange 2000/2003 plain-text NDR: "Your message … did not reach the following
 * recipient(s):" (or "The following recipient(s) could not be reached:"), then per recipient
 * "address on <date>", the reason indented below, and an "MSEXCH:IMS:…(000C05A6)" line whose code
 * names the cause. The original message is attached.
 */

/** The MSEXCH diagnostic codes whose cause is known (Exchange's own table). */
const CODES: Record<string, BounceReason> = {
  "000C05A6": "userunknown", // Unknown Recipient
  "000C0595": "filtered", // Ambiguous Recipient
  "00010256": "systemerror", // Too many recipients
  "000D06B5": "systemerror", // No proxy for recipient (non-SMTP)
  "00120270": "networkerror", // Too Many Hops
  "00050311": "contenterror", // Conversion to Internet format failed
  "000502CC": "contenterror", // Conversion to Internet format failed
  "000B0981": "securityerror", // 502 Server does not support AUTH
  "000B099C": "onhold", // Host Unknown, Message exceeds size limit, ...
  "000B09AA": "onhold", // Unable to relay for, Message exceeds size limit,...
  "000B09B6": "onhold", // Error messages by remote MTA
};

function isExchange(message: BounceMessage): boolean {
  if (message.headers.has("x-ms-embedded-report")) return true;
  const mailer = header(message, "x-mailer");
  if (
    mailer.startsWith("Internet Mail Service (") ||
    mailer.startsWith("Microsoft Exchange Server Internet Mail Connector")
  )
    return true;
  if (header(message, "x-mimeole").startsWith("Produced By Microsoft Exchange")) return true;
  return headers(message, "received").some((value) => value.includes(" with Internet Mail Service ("));
}

function read(message: BounceMessage): ReaderResult | undefined {
  if (!isExchange(message)) return undefined;
  const opened = openNotice(
    message,
    ["Content-Type: message/rfc822"],
    (line) =>
      line.includes("did not reach the following recipient(s):") ||
      line.includes("The following recipient(s) could not be reached:"),
  );
  if (opened === undefined) return undefined;
  const found: Found[] = [];
  let current: Found | undefined;
  for (const line of opened.after) {
    const on = / on .*\d/.exec(line);
    const head = on
      ? line
          .slice(0, on.index)
          .trim()
          .replace(/^.*smtp=/i, "")
      : "";
    if (on && isAddress(head)) {
      current = { recipient: head.replace(/^<|>$/g, ""), diagnostic: "" };
      found.push(current);
    } else if (
      current &&
      line.trim() !== "" &&
      !line.includes("The MTS-ID of the original") &&
      !line.startsWith(";l=")
    ) {
      addWords(current, line);
    }
  }
  const named = found.map((f) => {
    const code = /MSEXCH:[^(]*\(([0-9A-F]{8})\)/.exec(f.diagnostic ?? "")?.[1];
    const reason = code === undefined ? undefined : CODES[code];
    return reason === undefined ? f : { ...f, reason };
  });
  return reportOf(named, opened.quoted, message);
}

export const exchange2003Reader: BounceReader = { name: "exchange2003", read };
