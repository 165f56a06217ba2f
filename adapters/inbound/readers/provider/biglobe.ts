import type { BounceReader, ReaderRecipient } from "../reader.js";
import { addressLine, factsOf, linesOf } from "./plain-text.js";

/**
 * BIGLOBE (postmaster@biglobe.ne.jp): "----- The following addresses had delivery problems -----",
 * the addresses, "----- Non-delivered information -----" and BIGLOBE's reason in English, with
 * the returned message as a MIME part.
 */
const ADDRESSES = /^[ \t]*-+ The following addresses had delivery problems -+[ \t]*$/m;
const INFORMATION = /^[ \t]*-+ Non-delivered information -+[ \t]*$/m;

export const biglobeReader: BounceReader = {
  name: "biglobe",
  read(message) {
    if (!/@(?:[a-z0-9-]+\.)*biglobe\.ne\.jp\b/i.test(message.from)) return undefined;
    const text = message.text;
    const list = ADDRESSES.exec(text);
    const info = INFORMATION.exec(text);
    if (list === null || info === null || info.index < list.index) return undefined;
    const words = text.slice(info.index + info[0].length).split(/\n\s*\n/)[0] ?? "";
    const full = /mailbox exceeded|mailbox is full/i.test(words);
    const recipients: ReaderRecipient[] = [];
    for (const line of linesOf(text.slice(list.index + list[0].length, info.index))) {
      const recipient = addressLine(line);
      if (recipient !== undefined)
        recipients.push({ recipient, ...factsOf(words), ...(full ? { reason: "mailboxfull" as const } : {}) });
    }
    return { recipients };
  },
};
