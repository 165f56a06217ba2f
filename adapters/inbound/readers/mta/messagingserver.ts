import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { cutAt, type Found, isAddress, linesOf, reportOf } from "./common.js";

/**
 * Sun/Oracle Messaging Server and PMDF, as text: "This report relates to a message you sent with
 * the following header fields:" (the original's headers, indented), "Your message cannot be
 * delivered to the following recipients:" then per recipient "Recipient address:", "Reason:",
 * "Diagnostic code: smtp; …". Read when the report's MIME parts cannot be (boundaries missing).
 */

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.subject.startsWith("Delivery Notification: ") && !message.subject.startsWith("Delivery Notification ("))
    return undefined;
  const { notice } = cutAt(message.text, ["Content-Type: message/rfc822", "Content-type: message/rfc822"]);
  const lines = linesOf(notice);
  const intro = lines.findIndex((line) => line.startsWith("This report relates to a message you sent"));
  const start = lines.findIndex((line) =>
    /^Your message (?:cannot be delivered|has been delayed|is being delayed)/.test(line),
  );
  if (start < 0) return undefined;
  const delayed = /delayed/.test(lines[start] ?? "");
  const found: Found[] = [];
  let current: Found | undefined;
  for (const line of lines.slice(start + 1)) {
    const field = /^\s+(Recipient address|Original address|Reason|Diagnostic code):\s*(.*)$/i.exec(line);
    if (field === null) {
      if (line.trim() === "" && found.length > 0 && current === undefined) break;
      continue;
    }
    const [, name, value = ""] = field;
    if (/^recipient address$/i.test(name ?? "") && isAddress(value)) {
      current = { recipient: value.trim(), diagnostic: "", action: delayed ? "delayed" : "failed" };
      found.push(current);
    } else if (current && /^diagnostic code$/i.test(name ?? ""))
      current.diagnostic = `${value.replace(/^smtp;\s*/i, "")} ${current.diagnostic ?? ""}`;
    else if (current && /^reason$/i.test(name ?? "")) current.diagnostic = `${current.diagnostic ?? ""} ${value}`;
  }
  // The original's header fields are listed, indented, in the preface.
  const listed =
    intro < 0
      ? undefined
      : lines
          .slice(intro + 1, start)
          .filter((line) => /^\s+[A-Za-z-]+:/.test(line))
          .map((line) => line.trim())
          .join("\n");
  return reportOf(found, listed, message);
}

export const messagingserverReader: BounceReader = { name: "messagingserver", read };
