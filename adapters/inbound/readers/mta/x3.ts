import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { commandIn, cutAt, type Found, isAddress, linesOf, quotedHeaders, recipientOf, resultOf } from "./common.js";

/**
 * The anonymous "X3" format Sisimai keeps: a framed "This is an automatically generated Delivery
 * Status Notification.", "Delivery to the following recipients failed permanently:" with
 * "   * address" lines, then "Technical details:" with "SMTP:RCPT host x: 553 …".
 */

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.from.startsWith('"Mail Delivery System"') && !message.from.startsWith("Mail Delivery System"))
    return undefined;
  if (!message.subject.startsWith("Delivery status notification")) return undefined;
  const { notice, quoted } = cutAt(message.text, ["Content-Type: message/rfc822"]);
  const lines = linesOf(notice);
  const start = lines.findIndex((line) =>
    line.trim().startsWith("This is an automatically generated Delivery Status Notification."),
  );
  if (start < 0) return undefined;
  const delayed = notice.includes("Delivery to the following recipients has been delayed");
  const found: Found[] = [];
  let details = "";
  for (const line of lines.slice(start + 1)) {
    const star = /^\s+\* (\S+@\S+)$/.exec(line);
    if (star && isAddress(star[1] ?? "")) found.push({ recipient: star[1], action: delayed ? "delayed" : "failed" });
    else if (line.startsWith("SMTP:") || line.startsWith("Routing: ")) details = `${details} ${line}`;
  }
  // The technical details name one command and answer for every recipient listed above them.
  const command = details.startsWith(" SMTP:") ? commandIn(details.slice(6, 12)) : undefined;
  return resultOf(
    found.map((f) =>
      recipientOf({
        ...f,
        diagnostic: details.replace(/^\s*SMTP:\S+\s*/, ""),
        ...(command === undefined ? {} : { command }),
      }),
    ),
    quotedHeaders(quoted, message),
  );
}

export const x3Reader: BounceReader = { name: "x3", read };
