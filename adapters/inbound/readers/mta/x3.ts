import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { commandIn, type Found, isAddress, openNotice, reportOf } from "./common.js";

/**
 * The anonymous "X3" format Sisimai keeps: a framed "This is an automatically generated Delivery
 * Status Notification.", "Delivery to the following recipients failed permanently:" with
 * "   * address" lines, then "Technical details:" with "SMTP:RCPT host x: 553 …".
 */

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.from.startsWith('"Mail Delivery System"') && !message.from.startsWith("Mail Delivery System"))
    return undefined;
  if (!message.subject.startsWith("Delivery status notification")) return undefined;
  const opened = openNotice(message, ["Content-Type: message/rfc822"], (line) =>
    line.trim().startsWith("This is an automatically generated Delivery Status Notification."),
  );
  if (opened === undefined) return undefined;
  const delayed = opened.notice.includes("Delivery to the following recipients has been delayed");
  const found: Found[] = [];
  let details = "";
  for (const line of opened.after) {
    const star = /^\s+\* (\S+@\S+)$/.exec(line);
    if (star && isAddress(star[1] ?? "")) found.push({ recipient: star[1], action: delayed ? "delayed" : "failed" });
    else if (line.startsWith("SMTP:") || line.startsWith("Routing: ")) details = `${details} ${line}`;
  }
  // The technical details name one command and answer for every recipient listed above them.
  const command = details.startsWith(" SMTP:") ? commandIn(details.slice(6, 12)) : undefined;
  const diagnostic = details.replace(/^\s*SMTP:\S+\s*/, "");
  return reportOf(
    found.map((f) => ({ ...f, diagnostic, ...(command === undefined ? {} : { command }) })),
    opened.quoted,
    message,
  );
}

export const x3Reader: BounceReader = { name: "x3", read };
