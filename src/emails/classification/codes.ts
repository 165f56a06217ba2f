/**
 * The codes a remote server's words carry: enhanced status codes (RFC 3463), SMTP reply codes
 * (RFC 5321) and the SMTP command that was refused. Reports often give a status that is vaguer
 * than the text they quote (`5.0.0` beside "550 5.1.1 …"), or of the other class (`4.5.0` beside
 * "550 5.5.0 …"); these readings let classification take the better one, as Sisimai does.
 */

/** Enhanced status codes in `text`, in order; IPv4 addresses and version numbers are not codes. */
export function statusCodesIn(text: string): string[] {
  const found: string[] = [];
  const vague: string[] = [];
  const pattern = /(^|[^\d.vV])([245])\.([0-7])\.(\d{1,3})(?![\d]|\.\d)/g;
  for (const match of text.matchAll(pattern)) {
    const code = `${match[2]}.${match[3]}.${Number(match[4])}`;
    // "x.0.0" and "4.4.7" say least; a precise code anywhere in the text goes first.
    if ((match[3] === "0" && match[4] === "0") || code === "4.4.7") vague.push(code);
    else found.push(code);
  }
  return [...found, ...vague];
}

/** The valid SMTP reply codes, by class (RFC 5321, 3463's companions, and the AUTH/TLS ones). */
const REPLY_CODES: Record<string, ReadonlySet<string>> = {
  "2": new Set(["211", "214", "220", "221", "235", "250", "251", "252", "253", "354"]),
  "4": new Set(["421", "422", "430", "432", "450", "451", "452", "453", "454", "455", "456", "458", "459"]),
  "5": new Set([
    ...["500", "501", "502", "503", "504", "520", "521", "523", "524", "525", "530", "533", "534", "535"],
    ...["538", "550", "551", "552", "553", "554", "555", "556", "557"],
  ]),
};

/**
 * The SMTP reply code `text` quotes: the first valid code of `preferredClass` (the class of the
 * status the text quotes) when there is one, else the first of class 5, 4, then 2. Undefined for a local program's exit
 * code (`X-Unix; 255`) or when no valid code stands alone.
 */
export function replyCodeIn(text: string, preferredClass?: string): string | undefined {
  // Not a part of an IPv6 address, a host name, a version or a number (`[2001:db8:220::1]`).
  const candidates = [...text.matchAll(/(?:^|[^\w./:])([245]\d\d)(?![\w./:])/g)].map((m) => m[1]!);
  const classes = preferredClass && REPLY_CODES[preferredClass] ? [preferredClass] : ["5", "4", "2"];
  for (const cls of [...classes, "5", "4", "2"]) {
    const code = candidates.find((c) => c[0] === cls && REPLY_CODES[cls]!.has(c));
    if (code !== undefined) return code;
  }
  return undefined;
}

/** True for codes that say little beyond their class: `x.0.0`, and any code with a `0` part. */
const isZeroed = (code: string) => code.slice(1).includes(".0");

/**
 * The better of the status a report gives and one its text quotes. The reply code decides when
 * the two disagree in class; otherwise the more precise code wins, and codes that name a protocol
 * or system trouble of the reporting hop (4.4.7, 4.7.0, 5.3.x, x.5.1–x.5.5) give way to the text's.
 */
export function preferredStatus(
  given: string | undefined,
  quoted: string | undefined,
  reply?: string,
): string | undefined {
  if (given === undefined) return quoted;
  if (quoted === undefined || given === quoted) return given;
  if (reply !== undefined && given[0] !== quoted[0]) {
    if (reply[0] === given[0]) return given;
    if (reply[0] === quoted[0]) return quoted;
  }
  if (given.endsWith(".0.0")) return quoted.endsWith(".0.0") ? given : quoted;
  if (isZeroed(given) && !isZeroed(quoted)) return quoted;
  if (quoted.endsWith(".0.0")) return given;
  if (given === "4.4.7" || given === "4.7.0" || given.startsWith("5.3.")) return quoted;
  if (/^\d\.5\.[1245]$/.test(given)) return quoted;
  if (given === "5.1.1") return isZeroed(quoted) || quoted.startsWith("5.5.") ? given : quoted;
  if (given === "5.1.3" && quoted.startsWith("5.7.")) return quoted;
  return given;
}

/** The best status among those a text quotes (the first, refined by the others in turn). */
export function quotedStatus(text: string): string | undefined {
  let best: string | undefined;
  for (const code of statusCodesIn(text)) best = best === undefined ? code : preferredStatus(best, code);
  return best;
}

const COMMAND_WORDS: readonly [RegExp, string][] = [
  [/^(?:rcpt|rcpt to)\b/, "RCPT"],
  [/^(?:mail|mail from)\b/, "MAIL"],
  [/^(?:end of data|data|end of message|message body)\b/, "DATA"],
  [/^(?:helo|ehlo)\b/, "HELO"],
  [/^starttls\b/, "STARTTLS"],
  [/^auth\b/, "AUTH"],
  [/^(?:initial connection|connect|greeting|banner)\b/, "CONN"],
];

function commandWord(words: string): string | undefined {
  const text = words.trim().toLowerCase().replace(/\s+/g, " ");
  for (const [pattern, command] of COMMAND_WORDS)
    if (pattern.test(text)) return command === "HELO" ? text.slice(0, 4).toUpperCase() : command;
  return undefined;
}

/**
 * The SMTP command a text says was refused: Postfix's "(in reply to RCPT TO command)", Exim's
 * "SMTP error from remote mail server after RCPT TO:", or the last command of a Sendmail-style
 * transcript (`>>> DATA` then `<<< 550 …`). Undefined when the text does not say.
 */
export function smtpCommandIn(text: string): string | undefined {
  const inReply = /in\s+reply\s+to\s+(?:the\s+)?([a-z][a-z\s]{2,20}?)\s+command/i.exec(text);
  if (inReply) return commandWord(inReply[1]!);
  const after = /(?:mail server|smtp error|refused|rejected)[^\n]{0,40}?\s+after\s+([a-z][a-z ]{2,20})/i.exec(text);
  if (after) {
    const command = commandWord(after[1]!);
    if (command !== undefined) return command;
  }
  let last: string | undefined;
  for (const line of text.split("\n")) {
    const sent = /^\s*>>>\s*([A-Za-z]{4,8})\b/.exec(line);
    if (sent) last = sent[1]!.toUpperCase() === "QUIT" ? last : commandWord(sent[1]!);
    else if (last !== undefined && /^\s*<<<\s*[45]\d\d/.test(line)) return last;
  }
  return undefined;
}

/**
 * The refused command a bounce's human-readable text gives for one recipient: read from the line
 * that names the recipient on (Postfix writes "<ann@example.org>: host … said: 550 … (in reply to
 * RCPT TO command)" per recipient), else from the whole text (a session transcript).
 */
export function smtpCommandFor(text: string, recipient: string | undefined): string | undefined {
  if (text === "") return undefined;
  if (recipient !== undefined && recipient !== "") {
    const at = text.toLowerCase().indexOf(recipient.toLowerCase());
    if (at >= 0) {
      const lineStart = text.lastIndexOf("\n", at) + 1;
      const blank = text.indexOf("\n\n", at);
      const found = smtpCommandIn(
        text.slice(lineStart, blank < 0 ? lineStart + 800 : Math.min(blank, lineStart + 800)),
      );
      if (found !== undefined) return found;
    }
  }
  return smtpCommandIn(text);
}
