import type { BounceReader } from "../reader.js";
import { addressIn, factsOf } from "./plain-text.js";

/**
 * Verizon Wireless's gateways: the picture-message one (MMSC, sysadmin@…vzwpix.com, "Message could
 * not be delivered to mobile.", "Error: No valid recipients for this MM", the original's `To:`
 * under "Original Message:") and the text-message one (post_master@vtext.com, "Error: Invalid
 * user address", the reply under "Error message below:", the envelope under "Message details:"
 * with "RCPT TO: …"). Both say the number has no mailbox.
 */
export const verizonReader: BounceReader = {
  name: "verizon",
  read(message) {
    const text = message.text;
    if (/@(?:[a-z0-9-]+\.)*vzwpix\.com\b/i.test(message.from)) {
      const error = /^Error:\s*(.*)$/m.exec(text)?.[1];
      const original = text.indexOf("Original Message:");
      const to = original < 0 ? undefined : /^To:\s*(.*)$/m.exec(text.slice(original))?.[1];
      const recipient = to === undefined ? undefined : addressIn(to);
      if (error === undefined || recipient === undefined) return undefined;
      const reason = /no valid recipients/i.test(error) ? ("userunknown" as const) : undefined;
      return { recipients: [{ recipient, ...factsOf(error), ...(reason ? { reason } : {}) }] };
    }
    if (/@(?:[a-z0-9-]+\.)*vtext\.com\b/i.test(message.from)) {
      const rcpt = /^[ \t]*RCPT TO:\s*(.*)$/m.exec(text)?.[1];
      const recipient = rcpt === undefined ? undefined : addressIn(rcpt);
      const error = /^Error:\s*(.*)$/m.exec(text)?.[1];
      if (recipient === undefined || error === undefined) return undefined;
      const below = /^Error message below:[ \t]*\n(.*)$/m.exec(text)?.[1] ?? "";
      const reason = /invalid user address/i.test(error) ? ("userunknown" as const) : undefined;
      return { recipients: [{ recipient, ...factsOf(`${below} ${error}`), ...(reason ? { reason } : {}) }] };
    }
    return undefined;
  },
};
