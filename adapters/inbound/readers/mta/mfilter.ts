import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { commandIn, cutAt, type Found, header, isAddress, linesOf, reportOf } from "./common.js";

/**
 * Digital Arts m-FILTER: "failure notice" with `X-Mailer: m-FILTER`, a Japanese preface, each
 * failed address alone on a line, then "-------server message" (the remote answer) and
 * "-------SMTP command" (the command it answered), then "-------original message".
 */

function read(message: BounceMessage): ReaderResult | undefined {
  if (header(message, "x-mailer") !== "m-FILTER" || message.subject !== "failure notice") return undefined;
  const { notice, quoted } = cutAt(message.text, ["-------original message", "-------original mail info"]);
  const found: Found[] = [];
  let current: Found | undefined;
  let section: "server" | "command" | undefined;
  for (const line of linesOf(notice)) {
    if (line === "") continue;
    if (!line.includes(" ") && isAddress(line)) {
      current = { recipient: line };
      found.push(current);
      section = undefined;
    } else if (line === "-------server message") section = "server";
    else if (line === "-------SMTP command") section = "command";
    else if (current && section === "server" && current.diagnostic === undefined) {
      current.diagnostic = line;
      section = undefined;
    } else if (current && section === "command") {
      const command = commandIn(line);
      if (command !== undefined) current.command = command;
      section = undefined;
    }
  }
  return reportOf(found, quoted, message);
}

export const mfilterReader: BounceReader = { name: "mfilter", read };
