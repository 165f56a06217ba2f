import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import {
  addressIn,
  cutAt,
  type Found,
  isAddress,
  linesOf,
  quotedHeaders,
  type ReasonTable,
  recipientOf,
  resultOf,
} from "./common.js";

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
  const { notice, quoted } = cutAt(message.text, ["------- Returned Message --------"]);
  const lines = linesOf(notice);
  const start = lines.findIndex((line) => line.startsWith("------- Failure Reasons "));
  if (start < 0) return undefined;
  const found: Found[] = [];
  let words = "";
  for (const line of lines.slice(start + 1)) {
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
  return resultOf(
    found.filter((f) => f.recipient !== undefined).map((f) => recipientOf(f, REASONS)),
    quotedHeaders(quoted, message),
  );
}

export const notesReader: BounceReader = { name: "notes", read };
