import type { BounceReader } from "../reader.js";
import { addressIn, factsOf, failedRecipients } from "./plain-text.js";

/**
 * Gmail and Google Workspace's current notice, when its delivery-status part is missing or empty:
 * a headline between double asterisks ("** Address not found **", "** Message not delivered **",
 * "** Message blocked **"), a paragraph naming the recipient ("Your message wasn't delivered to
 * … because …"), then the remote server's words after "The response from the remote server was:"
 * or "The response was:". The recipient is in `X-Failed-Recipients`, else in the paragraph.
 */
const HEADLINE = /^\*\* ([^*\n]{3,80}) \*\*$/m;
const RESPONSE = /^The response(?: from the remote server)? was:\s*$/m;
const NOT_DELIVERED_TO = /wasn't delivered to (\S{3,320}) because/;

export const googleWorkspaceReader: BounceReader = {
  name: "googleworkspace",
  read(message) {
    const text = message.text;
    const headline = HEADLINE.exec(text);
    if (headline === null || !/mailer-daemon@google/i.test(message.from)) return undefined;
    const response = RESPONSE.exec(text);
    const paragraph = text.slice(headline.index + headline[0].length, response?.index ?? undefined);
    // The server's words run to the next blank line; without them, the paragraph says why.
    const words =
      response === null
        ? paragraph.replace(/Learn more[^\n]*/g, "")
        : text
            .slice(response.index + response[0].length)
            .replace(/^\s*\n/, "")
            .split(/\n\s*\n/)[0]!;
    let recipients = failedRecipients(message);
    if (recipients.length === 0) {
      const named = NOT_DELIVERED_TO.exec(paragraph)?.[1];
      const address = named === undefined ? undefined : addressIn(named);
      recipients = address === undefined ? [] : [address];
    }
    const facts = factsOf(words);
    // "Send mail as" misconfigured: the sender's own account was refused, whatever the server said.
    if (/p=CustomFromDenied|'Send mail as'/.test(paragraph)) facts.reason = "rejected";
    return { recipients: recipients.map((recipient) => ({ recipient, ...facts })) };
  },
};
