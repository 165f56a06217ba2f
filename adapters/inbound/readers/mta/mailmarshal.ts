import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { type Found, isAddress, openNotice, reportOf } from "./common.js";

/**
 * Trustwave (Marshal) MailMarshal SMTP: 'Undeliverable Mail: "subject"', "Your message: From: …
 * Subject: …", "Could not be delivered because of" and the remote answer, then "The following
 * recipients were affected:" with one indented address per line; "Additional Information" follows.
 */

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.subject.startsWith('Undeliverable Mail: "')) return undefined;
  const opened = openNotice(message, ["Additional Information", "Content-Type: message/rfc822"], (line) =>
    line.startsWith("Your message:"),
  );
  if (opened === undefined) return undefined;
  let section: "error" | "recipients" | undefined;
  let words = "";
  const found: Found[] = [];
  for (const line of opened.after) {
    if (line.startsWith("Could not be delivered because of")) section = "error";
    else if (line.startsWith("The following recipients were affected:")) section = "recipients";
    else if (section === "error" && line.trim() !== "") words = `${words} ${line}`;
    else if (section === "recipients" && line.startsWith("    ") && isAddress(line))
      found.push({ recipient: line.trim() });
  }
  return reportOf(
    found.map((f) => ({ ...f, diagnostic: words })),
    opened.quoted,
    message,
  );
}

export const mailmarshalReader: BounceReader = { name: "mailmarshal", read };
