import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { addressIn, cutAt, header, linesOf, quotedHeaders, receivedBy, recipientOf, resultOf } from "./common.js";

/**
 * Apache James: "Error: …", "Error message below:" with the remote answer, then "Message details:"
 * listing the original's "Subject:", "MAIL FROM:" and "RCPT TO:" (indented by two spaces).
 */

function isJames(message: BounceMessage): boolean {
  return (
    message.subject === "[BOUNCE]" ||
    header(message, "message-id").includes(".JavaMail.") ||
    receivedBy(message, "JAMES SMTP Server")
  );
}

function read(message: BounceMessage): ReaderResult | undefined {
  if (!isJames(message)) return undefined;
  const { notice, quoted } = cutAt(message.text, ["Content-Type: message/rfc822"]);
  const lines = linesOf(notice);
  const details = lines.findIndex((line) => line.startsWith("Message details:"));
  if (details < 0) return undefined;
  const words = lines
    .slice(0, details)
    .filter((line) => line.trim() !== "" && line !== "Error message below:")
    .join(" ");
  const recipients = lines
    .slice(details + 1)
    .filter((line) => line.startsWith("  RCPT TO: "))
    .map((line) => addressIn(line))
    .filter((address) => address !== undefined)
    .map((recipient) => recipientOf({ recipient, diagnostic: words, command: "RCPT" }));
  // No quoted original: the listed Subject and sender stand for its headers.
  const listed = lines
    .slice(details + 1)
    .map((line) => line.trim())
    .filter((line) => /^(?:Subject|From):/.test(line))
    .join("\n");
  return resultOf(recipients, quotedHeaders(quoted, message) ?? (listed === "" ? undefined : listed));
}

export const apachejamesReader: BounceReader = { name: "apachejames", read };
