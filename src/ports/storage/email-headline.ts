import type { EmailListEntry, EmailRecord } from "./emails.js";

/**
 * The email without its bodies, headers and attachments, as a list shows it: what every backend
 * hands back for `listEmails` and for a claim whose content is left out. One shape across the
 * port, so it lives with the port, not in a feature.
 */
export function headlineOf(record: EmailRecord): EmailListEntry {
  const { from, to, cc, bcc, replyTo, subject } = record.content;
  return {
    ...record,
    content: { from, to, subject, ...(cc ? { cc } : {}), ...(bcc ? { bcc } : {}), ...(replyTo ? { replyTo } : {}) },
  };
}
