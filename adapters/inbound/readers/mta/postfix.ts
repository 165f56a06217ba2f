import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import {
  addressIn,
  addWords,
  ATTACHED_ORIGINAL,
  commandIn,
  type Found,
  linesOf,
  openNotice,
  quotedHeaders,
  recipientOf,
  replyCodeIn,
  resultOf,
} from "./common.js";

/**
 * Postfix with no delivery-status part (old versions, and relays that strip it): "This is the
 * Postfix program at host…" or "This is the mail system at host…", then per recipient
 * "<address>: words" (or "<address> (expanded from <alias>): words") with folded lines indented by
 * four spaces. Also Postfix's notice to the postmaster, "Postfix SMTP server: errors from host",
 * which is an SMTP transcript ("In: RCPT TO:<…>", "Out: 550 …").
 */

const STARTS = [
  /^This is the (?:Postfix program|mail system)/,
  /^\s*The (?:Postfix program|mail system)/,
  /^I'm sorry to have to inform you/,
];
const RECIPIENT = /^<([^<>\s]+@[^<>\s]+)>(?: \(expanded from <[^<>]*>\))?: ?(.*)$/;

function read(message: BounceMessage): ReaderResult | undefined {
  if (message.headers.has("x-aol-ip")) return undefined;
  if (message.subject.includes("SMTP server: errors from ")) return transcript(message);
  if (message.subject !== "Undelivered Mail Returned to Sender" && !message.subject.startsWith("Delayed Mail"))
    return undefined;
  const opened = openNotice(message, ATTACHED_ORIGINAL, (line) => STARTS.some((marker) => marker.test(line)));
  if (opened === undefined) return undefined;
  const { notice, quoted } = opened;
  const delayed = message.subject.startsWith("Delayed Mail");
  const found: Found[] = [];
  let current: Found | undefined;
  for (const line of opened.after) {
    const recipient = RECIPIENT.exec(line);
    if (recipient) {
      current = { recipient: recipient[1], diagnostic: recipient[2] ?? "", action: delayed ? "delayed" : "failed" };
      found.push(current);
    } else if (current && line.startsWith("    ")) addWords(current, line);
    else current = undefined;
  }
  const returned = quotedHeaders(quoted, message);
  if (found.length === 0 && notice.includes("--- Delivery report unavailable ---")) {
    const to = /^To:\s*(.+)$/im.exec(returned ?? "")?.[1];
    if (to !== undefined) found.push({ recipient: addressIn(to), diagnostic: "Delivery report unavailable" });
  }
  return resultOf(
    found
      .filter((f) => f.recipient !== undefined)
      .map((f) => {
        const inReplyTo = /\(in reply to ([^)]*)\)/.exec(f.diagnostic ?? "")?.[1];
        const command = inReplyTo === undefined ? undefined : commandIn(inReplyTo);
        return recipientOf(command === undefined ? f : { ...f, command });
      }),
    returned,
  );
}

/** "In:" and "Out:" lines, continuation lines joined: the first refused command names the recipient. */
function transcript(message: BounceMessage): ReaderResult | undefined {
  const steps: { side: "In" | "Out"; text: string }[] = [];
  for (const line of linesOf(message.text)) {
    const step = /^\s*(In|Out):\s+(.*)$/.exec(line);
    if (step) steps.push({ side: step[1] as "In" | "Out", text: step[2] ?? "" });
    else if (/^\s{2,}\S/.test(line) && steps.length > 0) {
      const last = steps[steps.length - 1];
      if (last) last.text = `${last.text} ${line.trim()}`;
    }
  }
  let recipient: string | undefined;
  let sender: string | undefined;
  let command: string | undefined;
  for (const step of steps) {
    if (step.side === "In") {
      command = commandIn(step.text.split(":")[0] ?? "");
      if (/^RCPT\b/i.test(step.text)) recipient ??= addressIn(step.text);
      if (/^MAIL\b/i.test(step.text)) sender = addressIn(step.text);
      continue;
    }
    const code = replyCodeIn(step.text);
    if (code === undefined || Number(code) < 400) continue;
    const address = recipient ?? sender;
    if (address === undefined) return undefined;
    const found: Found = { recipient: address, diagnostic: step.text, replyCode: code };
    if (command !== undefined) found.command = command;
    return resultOf([recipientOf(found)], undefined);
  }
  return undefined;
}

export const postfixReader: BounceReader = { name: "postfix", read };
