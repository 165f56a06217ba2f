import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { addressIn, type Found, isAddress, openNotice, type ReasonTable, reportOf } from "./common.js";

/**
 * Lotus Notes' SMTP MTA (before Domino): "Undeliverable message", "------- Failure Reasons
 * --------", the reason, the address alone on a line, then "------- Returned Message --------".
 */

const REASONS: ReasonTable = {
  networkerror: ["Message has exceeded maximum hop count"],
  userunknown: ["User not listed in public Name & Address Book", "ディレクトリのリストにありません"],
};

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.subject.startsWith("Undeliverable message")) return undefined;
  const opened = openNotice(message, ["------- Returned Message --------"], (line) =>
    line.startsWith("------- Failure Reasons "),
  );
  if (opened === undefined) return undefined;
  const { quoted } = opened;
  const found: Found[] = [];
  let words = "";
  for (const line of opened.after) {
    if (line === "" || line.startsWith("-")) continue;
    if (!line.includes(" ") && isAddress(line)) {
      found.push({ recipient: line, diagnostic: words });
      words = "";
    } else words = `${words} ${line}`;
  }
  if (found.length === 0) {
    // Only the reason: the quoted original's To is the recipient.
    const to = /^To:\s*(.+)$/im.exec(quoted ?? "")?.[1];
    if (to !== undefined) found.push({ recipient: addressIn(to), diagnostic: words });
  }
  return reportOf(
    found.filter((f) => f.recipient !== undefined),
    quoted,
    message,
    REASONS,
  );
}

export const notesReader: BounceReader = { name: "notes", read };
