import type { BounceReader, ReaderRecipient } from "../reader.js";
import { addressLine, cutAt, factsOf, linesOf } from "./plain-text.js";

/**
 * Yahoo's "Failure Notice" (MAILER-DAEMON@yahoo.com and its regional domains): "Sorry, we were
 * unable to deliver your message to the following address.", then per recipient `<address>:` and
 * the remote server's words ("Remote host said: 550 … [RCPT_TO]", or "550: …", or Yahoo's own),
 * then "--- Below this line is a copy of the message." and the returned message inline.
 */
const OPENING = "Sorry, we were unable to deliver your message to the following address";

export const yahooReader: BounceReader = {
  name: "yahoo",
  read(message) {
    const { notice, returned } = cutAt(message.text, "--- Below this line is a copy of the message");
    const opening = notice.indexOf(OPENING);
    if (opening < 0) return undefined;
    const recipients: ReaderRecipient[] = [];
    let words: string[] = [];
    let recipient: string | undefined;
    const close = () => {
      if (recipient !== undefined)
        recipients.push({ recipient, ...factsOf(words.join(" ").replace(/^Remote host said:\s*/, "")) });
    };
    for (const line of linesOf(notice.slice(opening + OPENING.length)).slice(1)) {
      const address = addressLine(line);
      if (address !== undefined) {
        close();
        recipient = address;
        words = [];
      } else if (line.trim() !== "") words.push(line.trim());
    }
    close();
    return { recipients, ...(returned === undefined ? {} : { returnedHeaders: returned }) };
  },
};
