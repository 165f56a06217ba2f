import type { BounceReader, ReaderRecipient } from "../reader.js";
import { addressIn, addressLine, cutAt, factsOf, linesOf } from "./plain-text.js";

/**
 * EZweb (au by KDDI's mobile mail, Postmaster@ezweb.ne.jp, "Mail System Error - Returned Mail"):
 * either "Recipient: <…>" lines each followed by the SMTP exchange (">>> RCPT TO:…", "<<< 550 …"),
 * or a sentence saying why ("The user(s) account is disabled.", "Your message was not delivered
 * within …") beside bare `<address>` lines. A Japanese paragraph may come first. The returned
 * message is a MIME part, or follows a line of dashes.
 */
const RECIPIENT = /^\s*Recipient:\s*(.*)$/;
/** EZweb's own sentences, which name no SMTP reply: what Sisimai reads them as. */
const OWN_WORDS: [RegExp, ReaderRecipient["reason"]][] = [
  [/account is disabled/i, "suspend"],
  [/was not delivered within/i, "expired"],
  [/rejected by a remote\s+mail server/i, "filtered"],
];

export const ezwebReader: BounceReader = {
  name: "ezweb",
  read(message) {
    if (!/@ezweb\.ne\.jp\b/i.test(message.from)) return undefined;
    const { notice, returned } = cutAt(message.text, /^-{20,}\s*$/);
    const lines = linesOf(notice);
    const recipients: ReaderRecipient[] = [];
    if (lines.some((line) => RECIPIENT.test(line))) {
      // One "Recipient:" each, with the SMTP exchange below it.
      let current: { recipient: string; words: string[] } | undefined;
      const close = () =>
        current && recipients.push({ recipient: current.recipient, ...factsOf(current.words.join(" ")) });
      for (const line of lines) {
        const named = RECIPIENT.exec(line)?.[1];
        const address = named === undefined ? undefined : addressIn(named);
        if (address !== undefined) {
          close();
          current = { recipient: address, words: [] };
        } else if (current && /^\s*(?:>>>|<<<)/.test(line)) current.words.push(line.trim());
      }
      close();
    } else {
      // Only the English sentences: the Japanese paragraph before them says the same in general words.
      const english = (line: string) => line.trim() !== "" && !/[^\x20-\x7e\t]/.test(line);
      const words = lines.filter((line) => english(line) && addressLine(line) === undefined).join(" ");
      const reason = OWN_WORDS.find(([pattern]) => pattern.test(words))?.[1];
      for (const line of lines) {
        const address = addressLine(line);
        if (address !== undefined)
          recipients.push({ recipient: address, ...factsOf(words), ...(reason ? { reason } : {}) });
      }
    }
    return { recipients, ...(returned === undefined ? {} : { returnedHeaders: returned }) };
  },
};
