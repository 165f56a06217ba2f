import type { BounceMessage, ReaderRecipient } from "../reader.js";

/**
 * What the mailbox providers' readers share: finding addresses, the line where the returned
 * message starts, the reply code and command in the remote server's words. Nothing here throws;
 * every search is bounded by the text it is given.
 */

/**
 * An address as bounces write it (bare, in angle brackets, quoted, with a trailing colon). Every
 * repetition is bounded (RFC 5321's 64-octet local part, 63-octet labels) and the local part
 * cannot hold an "@", so a search over a long line without an address stays linear.
 */
const ADDRESS = /[^\s<>"'(),;:[\]@]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}/;
/** A line that holds one address and nothing else: `user@example.org`, `<user@example.org>:`, `"user@example.org":`. */
const ADDRESS_LINE = /^\s*[<"]?([^\s<>"'(),;:[\]@]{1,64}@[^\s<>"'(),;:[\]@]{1,255}?)[>"]?:?\s*$/;
/** The SMTP reply code that opens the server's words (`550 5.1.1 …`, `550-…`, `550: …`). */
const REPLY_CODE = /(?:^|[\s(])([245]\d{2})(?=[\s:,-]|$)/m;
const COMMANDS: [RegExp, string][] = [
  [/\bRCPT[ _]TO\b|\bRCPT\b/i, "RCPT"],
  [/\bMAIL[ _]FROM\b/i, "MAIL"],
  [/\bDATA\b/, "DATA"],
  [/\b(?:EHLO|HELO)\b/, "EHLO"],
];

/** How many "@" signs `addressIn` looks around before it gives up. */
const MAX_AT_SIGNS = 1_000;

/**
 * The first address in `text`, as written. The pattern runs only on a window around each "@"
 * (an address is at most 64 characters before it and a bounded domain after), so a long text
 * costs one scan for "@", not a pattern search from every position.
 */
export function addressIn(text: string): string | undefined {
  let at = text.indexOf("@");
  for (let seen = 0; at >= 0 && seen < MAX_AT_SIGNS; seen++, at = text.indexOf("@", at + 1)) {
    const found = ADDRESS.exec(text.slice(Math.max(0, at - 64), at + 580))?.[0];
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The address when `line` holds an address and nothing else. */
export function addressLine(line: string): string | undefined {
  const found = ADDRESS_LINE.exec(line)?.[1];
  return found !== undefined && ADDRESS.test(found) ? found : undefined;
}

/** The first value of a top-level header (lower-case name), or "". */
export function header(message: BounceMessage, name: string): string {
  return message.headers.get(name)?.[0] ?? "";
}

/** The addresses of `X-Failed-Recipients` (Gmail, Google Groups, Exim-based providers). */
export function failedRecipients(message: BounceMessage): string[] {
  const found: string[] = [];
  for (const value of message.headers.get("x-failed-recipients") ?? []) {
    for (const each of value.split(",")) {
      const address = addressIn(each);
      if (address !== undefined && !found.includes(address)) found.push(address);
    }
  }
  return found;
}

/**
 * Splits a bounce's text at the first line that starts with `marker` (after spaces): the notice
 * before it, and the returned message's header block after it (leading blank lines dropped).
 */
export function cutAt(text: string, marker: string | RegExp): { notice: string; returned?: string } {
  const pattern = typeof marker === "string" ? undefined : marker;
  let at = 0;
  while (at <= text.length) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end).trimStart();
    if (pattern ? pattern.test(line) : line.startsWith(marker as string)) {
      const rest = text.slice(end + 1).replace(/^(?:[ \t]*\n)+/, "");
      return rest.trim() === "" ? { notice: text.slice(0, at) } : { notice: text.slice(0, at), returned: rest };
    }
    at = end + 1;
  }
  return { notice: text };
}

/** The text's lines, trimmed at the end. */
export function linesOf(text: string): string[] {
  return text.split("\n").map((line) => line.trimEnd());
}

/** The reply code and refused command in the server's words, with the words on one line. */
export function factsOf(words: string): ReaderRecipient {
  const diagnostic = words.replace(/\s+/g, " ").trim();
  const facts: ReaderRecipient = {};
  if (diagnostic !== "") facts.diagnostic = diagnostic;
  const code = REPLY_CODE.exec(diagnostic)?.[1];
  if (code !== undefined) facts.replyCode = code;
  for (const [pattern, command] of COMMANDS) {
    if (pattern.test(diagnostic)) {
      facts.command = command;
      break;
    }
  }
  return facts;
}

/**
 * Exim's own sentences (no remote server spoke), which Mail.Ru's, GMX's and 1&1's bounces keep:
 * the reason each means, as Sisimai reads them.
 */
const EXIM_OWN_WORDS: [RegExp, NonNullable<ReaderRecipient["reason"]>][] = [
  [/retry timeout exceeded|retry time not reached for any host/i, "expired"],
  [/an MX or SRV record indicated no SMTP service/i, "notaccept"],
  [
    /Unrouteable address|all relevant MX records point to non-existent hosts|all host address lookups failed/i,
    "hostunknown",
  ],
  [/mailbox is full|quota exceeded/i, "mailboxfull"],
  [/Mail size limit exceeded|message too big/i, "mesgtoobig"],
];

/** The reason Exim's own words give, when no remote server's reply code is among them. */
export function eximOwnReason(facts: ReaderRecipient): ReaderRecipient["reason"] {
  if (facts.replyCode !== undefined || facts.diagnostic === undefined) return undefined;
  return EXIM_OWN_WORDS.find(([pattern]) => pattern.test(facts.diagnostic!))?.[1];
}

/**
 * Recipients listed one per address line, each followed by lines of the server's words (Exim's
 * layout, which Mail.ru, GMX and 1&1 keep): a line holding only an address opens a recipient,
 * other non-blank lines are its words. `skip` drops boilerplate lines from the words. Exim's own
 * sentences give the reason when no server replied.
 */
export function listedRecipients(lines: readonly string[], skip?: RegExp): ReaderRecipient[] {
  const found: { recipient: string; words: string[] }[] = [];
  for (const line of lines) {
    const address = addressLine(line);
    if (address !== undefined) {
      if (!found.some((each) => each.recipient === address)) found.push({ recipient: address, words: [] });
      continue;
    }
    const current = found[found.length - 1];
    if (current === undefined || line.trim() === "" || (skip && skip.test(line))) continue;
    current.words.push(line.trim());
  }
  return found.map(({ recipient, words }) => {
    const facts = factsOf(words.join(" "));
    const reason = eximOwnReason(facts);
    return { recipient, ...facts, ...(reason === undefined ? {} : { reason }) };
  });
}
