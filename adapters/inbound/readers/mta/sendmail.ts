import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { commandIn, type Found, isAddress, openNotice, quotedHeaders, recipientOf, resultOf } from "./common.js";

/**
 * Sendmail 8 when its MIME structure is lost (a relay flattened it, or the top-level Content-Type
 * is missing): "The original message was received at …", "----- The following addresses had
 * permanent fatal errors -----" (or "transient non-fatal errors" for a delay) with each address
 * and its "(reason: …)" below it, then "----- Transcript of session follows -----".
 */

const ENDS = [
  "Content-Type: message/rfc822",
  "Content-Type: text/rfc822-headers",
  "----- Original message follows -----",
  "----- Message header follows -----",
];

function read(message: BounceMessage): ReaderResult | undefined {
  if (!/^(?:Returned mail:|Warning: could not send message)/.test(message.subject)) return undefined;
  const opened = openNotice(message, ENDS, (line) =>
    /----- The following addresses had (?:permanent fatal|transient non-fatal) errors -----/.test(line),
  );
  if (opened === undefined) return undefined;
  const delayed = opened.opening.includes("transient non-fatal");
  const found: Found[] = [];
  let current: Found | undefined;
  let transcript: string[] | undefined;
  let command: string | undefined;
  for (const line of opened.after) {
    if (line.includes("----- Transcript of session follows -----")) transcript = [];
    else if (transcript === undefined && line.trim() === "" && found.length > 0) transcript = [];
    else if (transcript === undefined && /^<?[^\s<>():]+>?$/.test(line)) {
      current = {
        recipient: line.trim().replace(/^<(.*)>$/, "$1"),
        diagnostic: "",
        action: delayed ? "delayed" : "failed",
      };
      found.push(current);
    } else if (transcript === undefined && current) {
      const reason = /^\s+\(reason: (.*)\)$/.exec(line);
      if (reason) current.diagnostic = reason[1];
    } else if (transcript !== undefined && line.startsWith(">>> "))
      command = commandIn(line.slice(4).split(":")[0] ?? "");
    else if (transcript !== undefined && line.startsWith("<<< ")) transcript.push(line.slice(4));
    else if (transcript !== undefined && line.startsWith("--"))
      break; // the next MIME boundary
    else if (transcript !== undefined && line.trim() !== "") transcript.push(line);
  }
  // A local part alone ("kijitora") is completed from a Final-Recipient the flattened report still holds.
  const finals = [...message.text.matchAll(/^Final-Recipient:\s*rfc822;\s*(\S+)$/gim)].map((m) => m[1] ?? "");
  const recipients = found.map((f) => {
    const recipient =
      f.recipient !== undefined && !isAddress(f.recipient)
        ? (finals.find((address) => address.startsWith(`${f.recipient}@`)) ?? f.recipient)
        : f.recipient;
    const diagnostic = f.diagnostic === "" || f.diagnostic === undefined ? (transcript ?? []).join(" ") : f.diagnostic;
    // "Message could not be delivered for 5 days": sendmail's queue lifetime ran out.
    const expired = diagnostic.includes("Message could not be delivered for");
    return recipientOf({
      ...f,
      recipient,
      diagnostic,
      ...(command === undefined ? {} : { command }),
      ...(expired ? { reason: "expired" as const } : {}),
    });
  });
  return resultOf(recipients, quotedHeaders(opened.quoted, message));
}

export const sendmailReader: BounceReader = { name: "sendmail", read };
