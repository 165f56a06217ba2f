import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { allText, cutAt, type Found, isAddress, linesOf, reportOf } from "./common.js";

/**
 * The anonymous "X1" format Sisimai keeps: "Returned Mail: …" from "Mail Deliver System", "The
 * original message was received at …", "---The following addresses had delivery errors---", then
 * "address [reason]" per recipient; the original's headers follow from "Received: from".
 */

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.subject.startsWith("Returned Mail: ") || !message.from.startsWith('"Mail Deliver System"'))
    return undefined;
  const { notice, quoted } = cutAt(allText(message), ["Received: from "]);
  const lines = linesOf(notice);
  const start = lines.findIndex((line) => line.startsWith("The original message was received at "));
  if (start < 0) return undefined;
  const found: Found[] = [];
  for (const line of lines.slice(start + 1)) {
    const entry = /^(\S+@\S+) \[(.*)\]$/.exec(line);
    if (entry && isAddress(entry[1] ?? "")) found.push({ recipient: entry[1], diagnostic: entry[2] ?? "" });
  }
  const returned = quoted === undefined ? undefined : `Received: from ${quoted}`;
  return reportOf(found, returned, message);
}

export const x1Reader: BounceReader = { name: "x1", read };
