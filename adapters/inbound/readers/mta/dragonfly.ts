import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import {
  addressIn,
  commandIn,
  cutAt,
  type Found,
  linesOf,
  quotedHeaders,
  type ReasonTable,
  receivedBy,
  recipientOf,
  resultOf,
} from "./common.js";

/**
 * DragonFly Mail Agent (dma): "This is the DragonFly Mail Agent vX at host.", then "There was an
 * error delivering your mail to <address>." and the remote server's words ("host [ip] did not like
 * our RCPT TO:" and its reply), then "Message headers follow." or "Original message follows.".
 */

const REASONS: ReasonTable = {
  expired: ["Could not deliver for the last "],
  hostunknown: ["DNS lookup failure: host "],
};

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.subject.includes("Mail delivery failed")) return undefined;
  if (!receivedBy(message, "(DragonFly Mail Agent") && !message.text.includes("This is the DragonFly Mail Agent "))
    return undefined;
  const { notice, quoted } = cutAt(message.text, ["Original message follows.", "Message headers follow"]);
  const lines = linesOf(notice);
  const start = lines.findIndex((line) => line.startsWith("This is the DragonFly Mail Agent "));
  if (start < 0) return undefined;
  const found: Found[] = [];
  let current: Found | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line === "") continue;
    if (line.startsWith("There was an error delivering your mail to <")) {
      current = { recipient: addressIn(line), diagnostic: "" };
      found.push(current);
    } else if (current) {
      current.diagnostic = `${current.diagnostic ?? ""} ${line}`;
      if (line.includes(" did not like our "))
        current.command = commandIn(line.slice(line.indexOf(" did not like our ")));
    }
  }
  return resultOf(
    found.map((f) => recipientOf(f, REASONS)),
    quotedHeaders(quoted, message),
  );
}

export const dragonflyReader: BounceReader = { name: "dragonfly", read };
