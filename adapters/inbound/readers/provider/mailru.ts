import type { BounceReader } from "../reader.js";
import { cutAt, linesOf, listedRecipients } from "./plain-text.js";

/**
 * Mail.Ru's bounce (mailer-daemon@corp.mail.ru, subject "… Mail failure."): a Russian notice, a row
 * of asterisks, then Exim's English text, "The following address(es) failed:", each address
 * indented on its own line with the server's words indented below it, and
 * "------ This is a copy of the message, including all the headers. ------".
 * The Russian half lists the same recipients; the English half is read when present.
 */
const ENGLISH = /^.*The following address\(es\) failed:\s*$/m;
const RUSSIAN = /^.*не может быть доставлено[^\n]*$/m;

export const mailRuReader: BounceReader = {
  name: "mailru",
  read(message) {
    if (!/@(?:[a-z0-9-]+\.)*mail\.ru\b/i.test(message.from) && !message.text.includes("Mail.Ru")) return undefined;
    const { notice, returned } = cutAt(message.text, "------ This is a copy of the message");
    const opening = ENGLISH.exec(notice) ?? RUSSIAN.exec(notice);
    if (opening === null) return undefined;
    const list = notice.slice(opening.index + opening[0].length).split(/^\*{5,}\s*$/m)[0]!;
    const recipients = listedRecipients(linesOf(list), /^\S/);
    return { recipients, ...(returned === undefined ? {} : { returnedHeaders: returned }) };
  },
};
