import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { addressIn, cutAt, linesOf, quotedHeaders, recipientOf, resultOf } from "./common.js";

/**
 * MailFoundry: "Message delivery has failed", "Unable to deliver message to: <address>", "Delivery
 * failed for the following reason:" and the remote server's answer; the original is attached.
 */

function read(message: BounceMessage): ReaderResult | undefined {
  if (message.subject !== "Message delivery has failed" || !message.from.includes("MAILER-DAEMON")) return undefined;
  const { notice, quoted } = cutAt(message.text, ["Content-Type: message/rfc822"]);
  const lines = linesOf(notice);
  const at = lines.findIndex((line) => line.startsWith("Unable to deliver message to: <"));
  const recipient = at < 0 ? undefined : addressIn(lines[at] ?? "");
  if (recipient === undefined) return undefined;
  const reason = lines.findIndex((line) => line.startsWith("Delivery failed for the following reason:"));
  const end = lines.findIndex((line) => line.startsWith("This has been a permanent failure"));
  const words =
    reason < 0 ? [] : lines.slice(reason + 1, end < 0 ? undefined : end).filter((line) => line.trim() !== "");
  return resultOf([recipientOf({ recipient, diagnostic: words.join(" ") })], quotedHeaders(quoted, message));
}

export const mailfoundryReader: BounceReader = { name: "mailfoundry", read };
