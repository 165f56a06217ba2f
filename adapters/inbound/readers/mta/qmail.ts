import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import {
  angleBlocks,
  commandIn,
  headers,
  openNotice,
  quotedHeaders,
  reasonIn,
  type ReasonTable,
  recipientOf,
  replyCodeIn,
  resultOf,
} from "./common.js";

/**
 * qmail-send (and the many servers that copied its wording: x4, Yahoo's "Failure Notice", Spanish
 * "Su mensaje no pudo ser entregado"…): a preface ("Hi. This is the qmail-send program at…"),
 * then per recipient a line "<address>:" and the remote server's words below it, then "--- Below
 * this line is a copy of the message.".
 */

const SUBJECTS = ["failure notice"];

const STARTS = [
  "Hi. This is the qmail",
  "He/Her is not ",
  "unable to deliver your message to the following addresses",
  "Su mensaje no pudo ser entregado",
  "Sorry, we were unable to deliver your message to the following address",
  "This is the machine generated message from mail service",
  "This is the mail delivery agent at",
  "Unable to deliver message to the following address",
  "Unfortunately, your mail was not delivered to the following address:",
  "Your mail message to the following address",
  "Your message to the following addresses",
  "We're sorry.",
];

const ENDS = [
  "--- Below this line is a copy of the message.",
  "--- Below this line is a copy of the mail header.",
  "--- Below the next line is a copy of the message.",
  "--- Mensaje original adjunto.",
  "Content-Type: message/rfc822",
  "Original message follows.",
];

/** qmail-remote's own sentences, by the command they name. */
const COMMANDS: readonly [string, string][] = [
  [" but greeting failed.", "CONN"],
  [" but my name was rejected.", "EHLO"],
  [" but sender was rejected.", "MAIL"],
  [" does not like recipient.", "RCPT"],
  [" failed on DATA command", "DATA"],
  [" failed after I sent the message", "DATA"],
];

/** qmail's (and qmail-ldap's) own error texts, by the reason each decides. */
const REASONS: ReasonTable = {
  hostunknown: ["Sorry, I couldn't find any host "],
  mailboxfull: ["disk quota exceeded"],
  mesgtoobig: ["Message size exceeds fixed maximum message size:"],
  networkerror: [
    "Sorry, I wasn't able to establish an SMTP connection",
    "Sorry. Although I'm listed as a best-preference MX or A for that host",
  ],
  notaccept: ["Sorry, I couldn't find a mail exchanger or IP address"],
  systemfull: ["Requested action not taken: mailbox unavailable (not enough free space)"],
  userunknown: ["no mailbox here by that name"],
  exceedlimit: ["The message exeeded the maximum size the user accepts"],
  suspend: [
    "Mailaddress is administrativly disabled",
    "Mailaddress is administrativley disabled",
    "Mailaddress is administratively disabled",
    "Mailaddress is administrativeley disabled",
  ],
  systemerror: [
    "Automatic homedir creator crashed",
    "Illegal value in LDAP attribute",
    "LDAP attribute is not given but mandatory",
    "Timeout while performing search on LDAP server",
    "Too many results returned but needs to be unique",
    "Permanent error while executing qmail-forward",
    "Temporary error in automatic homedir creation",
    "Temporary error while executing qmail-forward",
    "Temporary failure in LDAP lookup",
    "Unable to contact LDAP server",
    "Unable to login into LDAP server, bad credentials",
    "bad interpreter: No such file or directory",
    "system error",
  ],
};

function isQmail(message: BounceMessage): boolean {
  if (SUBJECTS.includes(message.subject.trim().toLowerCase())) return true;
  return headers(message, "received").some((value) => /\(qmail \S+ invoked (?:for bounce|from network)\)/.test(value));
}

function read(message: BounceMessage): ReaderResult | undefined {
  if (!isQmail(message)) return undefined;
  const opened = openNotice(message, ENDS, (line) => STARTS.some((marker) => line.includes(marker)));
  if (opened === undefined) return undefined;
  const recipients = angleBlocks(opened.after).map((f) => {
    const words = f.diagnostic ?? "";
    const command =
      COMMANDS.find(([phrase]) => words.includes(phrase))?.[1] ??
      (words.includes("most progress was")
        ? commandIn(words.slice(words.indexOf("most progress was")))
        : // Yahoo's clone names the command in brackets after the reply: "[RCPT_TO]".
          commandIn((/\[(RCPT_TO|MAIL_FROM|DATA)\]/.exec(words)?.[1] ?? "").replace("_", " ")));
    const reason =
      command === "EHLO"
        ? "blocked"
        : // qmail's own words decide only when no remote server answered: a quoted reply
          // ("Remote host said: 450 4.2.2 … Mailbox Full") says more than "queue too long".
          (reasonIn(words, REASONS) ??
          (replyCodeIn(words) === undefined && words.includes("this message has been in the queue too long.")
            ? "expired"
            : undefined));
    return recipientOf({
      ...f,
      ...(command === undefined ? {} : { command }),
      ...(reason === undefined ? {} : { reason }),
    });
  });
  return resultOf(recipients, quotedHeaders(opened.quoted, message));
}

export const qmailReader: BounceReader = { name: "qmail", read };
