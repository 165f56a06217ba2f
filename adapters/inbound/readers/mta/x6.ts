import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { addressIn, commandIn, cutAt, type Found, linesOf, quotedHeaders, recipientOf, resultOf } from "./common.js";

/**
 * The anonymous "X6" format Sisimai keeps: "There was an error sending your mail", "We had trouble
 * delivering your message. Full details follow:", then one line per recipient ("The following
 * recipients returned permanent errors: address. Reason: …" or "SMTP Server <host> rejected
 * recipient <address> (Error following RCPT command). It responded as follows: […]"); the
 * original headers come as a text attachment.
 */

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.subject.startsWith("There was an error sending your mail")) return undefined;
  const { notice } = cutAt(message.text, ["The attachment contains the original mail headers"]);
  const lines = linesOf(notice);
  const start = lines.findIndex((line) =>
    line.startsWith("We had trouble delivering your message. Full details follow:"),
  );
  if (start < 0) return undefined;
  const found: Found[] = [];
  for (const line of lines.slice(start + 1)) {
    const permanent = line.startsWith("The following recipients returned permanent errors: ");
    if (!permanent && !line.startsWith("SMTP Server <")) continue;
    const address = permanent
      ? addressIn(line.slice(line.indexOf(": ") + 2).replace(/\. Reason:.*$/, ""))
      : addressIn(line.slice(line.indexOf("recipient ")));
    const command = commandIn(/\(([^)]*)\)/.exec(line)?.[1] ?? "");
    found.push({ recipient: address, diagnostic: line, ...(command === undefined ? {} : { command }) });
  }
  const attached = message.parts.find(
    (p) => p.contentType.startsWith("text/plain") || p.contentType.startsWith("text/rfc822"),
  );
  return resultOf(
    found.filter((f) => f.recipient !== undefined).map((f) => recipientOf(f)),
    quotedHeaders(attached?.text, message),
  );
}

export const x6Reader: BounceReader = { name: "x6", read };
