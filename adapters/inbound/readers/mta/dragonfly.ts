import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import {
  addressIn,
  addWords,
  commandIn,
  type Found,
  openNotice,
  type ReasonTable,
  receivedBy,
  reportOf,
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
  const opened = openNotice(message, ["Original message follows.", "Message headers follow"], (line) =>
    line.startsWith("This is the DragonFly Mail Agent "),
  );
  if (opened === undefined) return undefined;
  const found: Found[] = [];
  let current: Found | undefined;
  for (const line of opened.after) {
    if (line === "") continue;
    if (line.startsWith("There was an error delivering your mail to <")) {
      current = { recipient: addressIn(line), diagnostic: "" };
      found.push(current);
    } else if (current) {
      addWords(current, line);
      if (line.includes(" did not like our "))
        current.command = commandIn(line.slice(line.indexOf(" did not like our ")));
    }
  }
  return reportOf(found, opened.quoted, message, REASONS);
}

export const dragonflyReader: BounceReader = { name: "dragonfly", read };
