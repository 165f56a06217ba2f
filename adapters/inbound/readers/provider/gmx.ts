import type { BounceReader } from "../reader.js";
import { cutAt, linesOf, listedRecipients } from "./plain-text.js";

/**
 * GMX and 1&1 (United Internet's mail systems, mailer-daemon@gmx.* and @kundenserver.de, also
 * relaying for other providers): Exim's wording up to "The following address(es) failed:", then
 * the address (bare or quoted, with a colon), the server's words or "For the following reason:"
 * and 1&1's own, and "--- The header of the original message is following. ---" with the
 * returned headers.
 */
const RETURNED = "--- The header of the original message is following. ---";
const LIST_START = /^.*failed:\s*$/m;

export const gmxReader: BounceReader = {
  name: "gmx",
  read(message) {
    if (!message.text.includes(RETURNED)) return undefined;
    const { notice, returned } = cutAt(message.text, RETURNED);
    const start = LIST_START.exec(notice);
    if (start === null) return undefined;
    const recipients = listedRecipients(
      linesOf(notice.slice(start.index + start[0].length)),
      /^\s*For the following reason:\s*$|^\s*(?:--|https?:)/,
    );
    return { recipients, ...(returned === undefined ? {} : { returnedHeaders: returned }) };
  },
};
