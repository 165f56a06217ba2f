import type { BounceReason, DeliveryAction } from "../../../../src/emails/index.js";
import type { BounceMessage, ReaderRecipient, ReaderResult } from "../reader.js";

/**
 * What the MTA readers share: looking at header fields, cutting the bounce text where the quoted
 * original begins, and pulling an address, a reply code or a refused command out of a line. Each
 * family's file only says where its own words are; the scanning is here, once.
 */

/** The first value of a top-level header field (lower-case name), or "". */
export function header(message: BounceMessage, name: string): string {
  return message.headers.get(name)?.[0] ?? "";
}

/** Every value of a header field, in order. */
export function headers(message: BounceMessage, name: string): readonly string[] {
  return message.headers.get(name) ?? [];
}

/** Whether any Received field contains `needle` (how an MTA names itself in the trace). */
export function receivedBy(message: BounceMessage, needle: string): boolean {
  return headers(message, "received").some((value) => value.includes(needle));
}

/**
 * Splits the bounce text at the first line that starts (after indentation) with one of
 * `markers`: the notice before it, the quoted original after it (without the marker line).
 */
export function cutAt(text: string, markers: readonly string[]): { notice: string; quoted: string | undefined } {
  let best = -1;
  let lineEnd = -1;
  for (const marker of markers) {
    let at = text.indexOf(marker);
    while (at >= 0) {
      const lineStart = text.lastIndexOf("\n", at - 1) + 1;
      if (text.slice(lineStart, at).trim() === "") break;
      at = text.indexOf(marker, at + 1);
    }
    if (at >= 0 && (best < 0 || at < best)) {
      best = at;
      const end = text.indexOf("\n", at);
      lineEnd = end < 0 ? text.length : end + 1;
    }
  }
  if (best < 0) return { notice: text, quoted: undefined };
  return { notice: text.slice(0, best), quoted: text.slice(lineEnd) };
}

const FIELD_LINE = /^[A-Za-z][A-Za-z0-9-]*:/;

/**
 * The header block of a quoted original: from the first line that looks like a header field
 * (blank lines and the MTA's own lines before it skipped), or an attached original when the
 * bounce quotes none inline. Undefined when there is none: the parser then uses what it found.
 */
export function quotedHeaders(quoted: string | undefined, message?: BounceMessage): string | undefined {
  if (quoted !== undefined) {
    const lines = quoted.split("\n");
    const first = lines.findIndex((line, i) => i < 20 && FIELD_LINE.test(line));
    if (first >= 0) {
      const block = lines.slice(first).join("\n");
      if (/^(message-id|return-path|to|from|received|subject|date):/im.test(block.slice(0, 8192))) return block;
    }
  }
  const part = message?.parts.find((p) => RETURNED.has(p.contentType));
  return part?.text;
}

const RETURNED = new Set(["message/rfc822", "text/rfc822-headers", "message/global", "message/global-headers"]);

/**
 * No line of a bounce notice that matters is longer than this; cutting longer ones keeps every
 * pattern the readers run over a line linear in practice, whatever a hostile message holds.
 */
const MAX_LINE = 2048;

/** Lines of `text`, trailing spaces removed, each at most MAX_LINE characters. */
export function linesOf(text: string): string[] {
  return text.split("\n").map((line) => (line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line).trimEnd());
}

/** Whitespace runs as one space, trimmed. */
export function squeeze(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

const ANGLE_ADDRESS = /<([^<>\s@]+@[^<>\s@]+)>/;
const BARE_ADDRESS = /([A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)+)/;

/** The first address in `text`: one in angle brackets first, else a bare one; undefined when none. */
export function addressIn(text: string): string | undefined {
  if (text.length > MAX_LINE) return addressIn(text.slice(0, MAX_LINE));
  const angle = ANGLE_ADDRESS.exec(text);
  if (angle) return angle[1];
  return BARE_ADDRESS.exec(text)?.[1];
}

/** Whether `text` is one bare address and nothing else (quotes and angle brackets allowed). */
export function isAddress(text: string): boolean {
  if (text.length > 320) return false; // no address is longer (RFC 5321: 64 + 1 + 255)
  const bare = text.trim().replace(/^<(.*)>$/, "$1");
  return BARE_ADDRESS.exec(bare)?.[1] === bare;
}

/** The SMTP reply code a server's words begin with (`550 5.1.1 …`, `host x: 550-…`); undefined when none. */
export function replyCodeIn(text: string): string | undefined {
  return /(?:^|[\s:([\]"'])([245][0-5][0-9])(?=[ -]|$)/.exec(text)?.[1];
}

const COMMANDS: readonly [RegExp, string][] = [
  [/\bRCPT TO\b|\brecipient\b|\bRCPT\b/i, "RCPT"],
  [/\bMAIL FROM\b|\bsender was rejected\b/i, "MAIL"],
  [/\bend of data\b|\bDATA\b|\bafter I sent the message\b/i, "DATA"],
  [/\bEHLO\b|\bHELO\b|\bmy name was rejected\b/i, "EHLO"],
  [/\bSTARTTLS\b/i, "STARTTLS"],
  [/\binitial connection\b|\bgreeting\b/i, "CONN"],
];

/** The SMTP command a phrase like "after RCPT TO" or "did not like our DATA" names; undefined when none. */
export function commandIn(text: string): string | undefined {
  for (const [pattern, command] of COMMANDS) if (pattern.test(text)) return command;
  return undefined;
}

/** A family's own phrases, by the reason they decide. */
export type ReasonTable = Partial<Record<BounceReason, readonly string[]>>;

/** The first reason of `table` whose phrase `text` contains (case-insensitive); undefined when none. */
export function reasonIn(text: string, table: ReasonTable): BounceReason | undefined {
  const lower = text.toLowerCase();
  for (const [reason, phrases] of Object.entries(table) as [BounceReason, readonly string[]][]) {
    if (phrases.some((phrase) => lower.includes(phrase.toLowerCase()))) return reason;
  }
  return undefined;
}

/** What a reader found about one recipient, before it is tidied into a ReaderRecipient. */
export interface Found {
  recipient: string | undefined;
  diagnostic?: string;
  action?: DeliveryAction;
  status?: string;
  replyCode?: string;
  command?: string;
  reason?: BounceReason;
}

/**
 * A ReaderRecipient from what was found: the diagnostic squeezed, the reply code and command read
 * from it when the reader found none, and no field that is undefined.
 */
export function recipientOf(found: Found, table?: ReasonTable): ReaderRecipient {
  const diagnostic = squeeze(found.diagnostic ?? "");
  const out: ReaderRecipient = {};
  if (found.recipient !== undefined) out.recipient = found.recipient;
  out.action = found.action ?? "failed";
  if (diagnostic !== "") out.diagnostic = diagnostic;
  if (found.status !== undefined) out.status = found.status;
  const replyCode = found.replyCode ?? replyCodeIn(diagnostic);
  if (replyCode !== undefined) out.replyCode = replyCode;
  if (found.command !== undefined) out.command = found.command;
  const reason = found.reason ?? (table === undefined ? undefined : reasonIn(diagnostic, table));
  if (reason !== undefined) out.reason = reason;
  return out;
}

/** The result of a reader: undefined when it found no recipient, so the next reader is tried. */
export function resultOf(recipients: ReaderRecipient[], returnedHeaders: string | undefined): ReaderResult | undefined {
  if (recipients.length === 0) return undefined;
  return returnedHeaders === undefined ? { recipients } : { recipients, returnedHeaders };
}

/** The lines where a MIME bounce's attached original (or its header block) begins. */
export const ATTACHED_ORIGINAL: readonly string[] = [
  "Content-Type: message/rfc822",
  "Content-Type: text/rfc822-headers",
];

/** A notice cut from the quoted original, and its lines from the one that opens it. */
export interface OpenedNotice {
  notice: string;
  quoted: string | undefined;
  /** The line that opens the notice. */
  opening: string;
  /** The lines after the opening one. */
  after: string[];
}

/**
 * Cuts the bounce text at the first of `ends` (see cutAt) and finds the notice's opening line;
 * undefined when no line opens it (the bounce is not this family's).
 */
export function openNotice(
  message: BounceMessage,
  ends: readonly string[],
  opens: (line: string) => boolean,
): OpenedNotice | undefined {
  const { notice, quoted } = cutAt(message.text, ends);
  const lines = linesOf(notice);
  const start = lines.findIndex(opens);
  if (start < 0) return undefined;
  return { notice, quoted, opening: lines[start] ?? "", after: lines.slice(start + 1) };
}

/** Adds a line to the words found for a recipient. */
export function addWords(found: Found, line: string): void {
  found.diagnostic = `${found.diagnostic ?? ""} ${line}`;
}

const ANGLE_LINE = /^<([^<>\s]+@[^<>\s]+)>:/;

/**
 * qmail's layout, which others copy: "<address>:" opens a recipient, with words after the colon,
 * and every following non-blank line adds to its words until the next one.
 */
export function angleBlocks(lines: readonly string[]): Found[] {
  const found: Found[] = [];
  let current: Found | undefined;
  for (const line of lines) {
    if (line === "") continue;
    const address = ANGLE_LINE.exec(line);
    if (address) {
      current = { recipient: address[1], diagnostic: line.slice(address[0].length) };
      found.push(current);
    } else if (current) addWords(current, line);
  }
  return found;
}

/** A reader's result: each recipient found, read against the family's `table`, and the quoted original's headers. */
export function reportOf(
  found: readonly Found[],
  quoted: string | undefined,
  message: BounceMessage,
  table?: ReasonTable,
): ReaderResult | undefined {
  return resultOf(
    found.map((f) => recipientOf(f, table)),
    quotedHeaders(quoted, message),
  );
}

/** The notice text and every other text part after it: some MTAs put their notice in an attachment. */
export function allText(message: BounceMessage): string {
  const texts = message.parts.filter((p) => p.contentType.startsWith("text/plain")).map((p) => p.text);
  return [message.text, ...texts].join("\n");
}
