import type { BounceReader } from "../reader.js";
import { cutAt, factsOf, failedRecipients } from "./plain-text.js";

/**
 * Google Groups' refusal, sent by mailer-daemon@googlemail.com in the poster's language: the group
 * does not exist or the sender may not post to it. The group's address is only in
 * `X-Failed-Recipients`; the notice (signed "Google Groups", linking groups.google.com) is the
 * diagnostic; the returned message follows "----- Original message -----".
 */
export const googleGroupsReader: BounceReader = {
  name: "googlegroups",
  read(message) {
    const { notice, returned } = cutAt(message.text, "----- Original message -----");
    if (!notice.includes("Google Groups") && !notice.includes("groups.google.com")) return undefined;
    const groups = failedRecipients(message);
    if (groups.length === 0) return undefined;
    // Google's paragraph names no code; the words say why (no such group, or no permission to post).
    const facts = factsOf(notice.replace(/https?:\/\/\S+/g, ""));
    return {
      recipients: groups.map((recipient) => ({ recipient, reason: "rejected" as const, ...facts })),
      ...(returned === undefined ? {} : { returnedHeaders: returned }),
    };
  },
};
