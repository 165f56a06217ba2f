import type { BounceReader, ReaderRecipient } from "../reader.js";
import { addressLine, cutAt, factsOf, linesOf } from "./plain-text.js";

/**
 * Gmail's plain-text bounce (mailer-daemon@googlemail.com, before Google moved to RFC 3464 parts):
 * "Delivery to the following recipient failed permanently:" (or "has been delayed:"), the
 * addresses indented on their own lines, "Technical details of permanent failure:" with the remote
 * server's words after "The error that the other server returned was:", then
 * "----- Original message -----" and the returned message.
 */
const OPENING = /^Delivery to the following recipients? (failed permanently|has been delayed|failed temporarily)/m;
const DETAILS = /^Technical details of (?:permanent|temporary) failure:/m;
const SERVER_SAID = /The error that the other server returned was:/;
/** Gmail ends the server's words with its SMTP client's state, "(state 14)": the command it was at. */
const STATE_COMMANDS: Record<string, string> = {
  "6": "MAIL",
  "8": "AUTH",
  "9": "AUTH",
  "12": "AUTH",
  "13": "EHLO",
  "14": "RCPT",
  "15": "DATA",
  "17": "DATA",
  "18": "DATA",
};
/** Gmail's own sentences, which quote no server: what they mean. */
const OWN_WORDS: [RegExp, ReaderRecipient["reason"]][] = [
  [/DNS Error: (?:Domain name not found|DNS server returned answer with no data)/, "hostunknown"],
  [/did not accept our requests to connect|DNS Error: Could not contact DNS servers/, "expired"],
];

export const gmailReader: BounceReader = {
  name: "gmail",
  read(message) {
    const { notice, returned } = cutAt(message.text, "----- Original message -----");
    const opening = OPENING.exec(notice);
    if (opening === null) return undefined;
    const action = opening[1] === "failed permanently" ? "failed" : "delayed";
    const body = notice.slice(opening.index + opening[0].length);
    const detailsAt = body.search(DETAILS);
    const listed = linesOf(detailsAt < 0 ? body : body.slice(0, detailsAt));
    let words = detailsAt < 0 ? "" : body.slice(detailsAt).replace(DETAILS, "");
    const said = SERVER_SAID.exec(words);
    if (said !== null) words = words.slice(said.index + said[0].length);
    const facts = factsOf(words.replace(/Message will be retried[^\n]*/, ""));
    const state = /\(state (\d+)\)/.exec(words)?.[1];
    if (state !== undefined && STATE_COMMANDS[state] !== undefined) facts.command = STATE_COMMANDS[state];
    const own = said === null ? OWN_WORDS.find(([pattern]) => pattern.test(words))?.[1] : undefined;
    if (own !== undefined && action === "failed") facts.reason = own;
    // States 6 and 9: Gmail's client stopped at STARTTLS (the server offered none, or a broken one).
    if (facts.reason === undefined && (state === "6" || state === "9")) facts.reason = "failedstarttls";
    const recipients: ReaderRecipient[] = [];
    for (const line of listed) {
      const recipient = addressLine(line);
      if (recipient !== undefined) recipients.push({ recipient, action, ...facts });
    }
    return { recipients, ...(returned === undefined ? {} : { returnedHeaders: returned }) };
  },
};
