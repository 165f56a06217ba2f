import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { addressIn, addWords, commandIn, type Found, openNotice, replyCodeIn, reportOf } from "./common.js";

/**
 * Sendmail V5 (and other old sendmails) with no delivery-status part: "Returned mail: …", then
 * "----- Transcript of session follows -----" holding the SMTP dialogue ("While talking to host:",
 * ">>> RCPT To:<…>", "<<< 550 …") and one line per failed recipient, "554 <address>... words";
 * then "----- Unsent message follows -----" (or "No message was collected").
 */

const ENDS = ["----- Unsent message follows -----", "----- No message was collected -----"];
const RECIPIENT = /^([245]\d\d) <([^<>\s]+@[^<>\s]+)>\.\.\.\s*(.*)$/;

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.subject.startsWith("Returned mail: ")) return undefined;
  const opened = openNotice(message, ENDS, (line) => line.includes("----- Transcript of session follows -----"));
  const quoted = opened?.quoted;
  if (opened === undefined || quoted === undefined) return undefined;
  const found: Found[] = [];
  let dialogue: string[] = []; // the server's answers since the last recipient line
  let command: string | undefined;
  for (const line of opened.after) {
    if (line.trim() === "") continue;
    if (/^while talking to /i.test(line.trim())) {
      dialogue = [];
      command = undefined;
      continue;
    }
    if (line.startsWith(">>> ")) {
      command = commandIn(line.slice(4).split(":")[0] ?? "") ?? command;
      continue;
    }
    if (line.startsWith("<<< ")) {
      dialogue.push(line.slice(4));
      continue;
    }
    const recipient = RECIPIENT.exec(line);
    if (recipient === null) continue;
    const address = recipient[2];
    // The remote server's answer, else sendmail's own words after the address; sendmail's own
    // code leads the line and is the reply code only when the remote server said none.
    const words = dialogue.length > 0 ? dialogue.join(" ") : (recipient[3] ?? "");
    const replyCode = replyCodeIn(words) ?? recipient[1];
    const same = found.find((f) => f.recipient === address);
    if (same) addWords(same, words);
    else
      found.push({ recipient: address, diagnostic: words, replyCode, ...(command === undefined ? {} : { command }) });
    dialogue = [];
    command = undefined;
  }
  if (found.length === 0) {
    // Only a host-level line ("421 host (smtp)... Deferred: …"): the quoted To is the recipient.
    const to = /^To:\s*(.+)$/im.exec(quoted)?.[1];
    const address = to === undefined ? undefined : addressIn(to);
    if (address === undefined) return undefined;
    found.push({ recipient: address, diagnostic: opened.after.join(" ") });
  }
  // "Returned mail: Cannot send message for 4 days": sendmail's queue lifetime ran out.
  const expired = message.subject.includes("Cannot send message for");
  return reportOf(expired ? found.map((f) => ({ ...f, reason: "expired" as const })) : found, quoted, message);
}

export const v5sendmailReader: BounceReader = { name: "v5sendmail", read };
