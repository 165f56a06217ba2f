import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { cutAt, type Found, linesOf, quotedHeaders, recipientOf, resultOf } from "./common.js";

/**
 * The anonymous "X2" format Sisimai keeps (a webmail provider's MTA, qmail-like): "Unable to
 * deliver message to the following address(es).", then "<address>:" and the reason on the next
 * line, then "--- Original message follows.".
 */

const SUBJECTS = ["Delivery failure", "failure delivery", "failed delivery"];

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.from.includes("MAILER-DAEMON@") && !SUBJECTS.some((s) => message.subject.startsWith(s)))
    return undefined;
  const { notice, quoted } = cutAt(message.text, ["--- Original message follows."]);
  const lines = linesOf(notice);
  const start = lines.findIndex((line) => line.startsWith("Unable to deliver message to the following address"));
  if (start < 0) return undefined;
  const found: Found[] = [];
  let current: Found | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line === "") continue;
    const address = /^<([^<>\s]+@[^<>\s]+)>:/.exec(line);
    if (address) {
      current = { recipient: address[1], diagnostic: line.slice(address[0].length) };
      found.push(current);
    } else if (current) current.diagnostic = `${current.diagnostic ?? ""} ${line}`;
  }
  return resultOf(
    found.map((f) => recipientOf(f)),
    quotedHeaders(quoted, message),
  );
}

export const x2Reader: BounceReader = { name: "x2", read };
