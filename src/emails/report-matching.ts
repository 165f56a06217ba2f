import { isStorableText } from "../input-policy.js";
import type { EmailRecord, Storage } from "../ports/storage/index.js";
import type { DeliveryReport } from "./reports.js";
import { normalMessageId } from "./report-fields.js";
import { splitVerpKey } from "./verp-tag.js";

/** An email a report named, and how: by a VERP key (`tag` when it had one), or otherwise. */
export interface Match {
  email: EmailRecord;
  verp?: { tag?: string };
}

/** A Message-ID compared without regard to case (`<id@domain>`); undefined when unusable. */
function comparableMessageId(text: string | undefined): string | undefined {
  return normalMessageId(text)?.toLowerCase();
}

/** The email id a flagpost Message-ID carries (`<id@domain>`), if it has that form. */
function idOfMessageId(messageId: string): string | undefined {
  const normal = comparableMessageId(messageId);
  if (normal === undefined) return undefined;
  const at = normal.indexOf("@");
  return at > 1 ? normal.slice(1, at) : undefined;
}

/**
 * The email a report names, best first: the VERP key (`emailId`), the original Message-ID (which
 * must be the email's own, not merely carry its id), the provider's message id. Finding an email
 * proves nothing yet: the applier checks the tag and the recipient.
 */
export async function matchReport(storage: Storage, report: DeliveryReport): Promise<Match | undefined> {
  const emails = storage.emails;
  if (report.emailId !== undefined && isStorableText(report.emailId)) {
    const { id, tag } = splitVerpKey(report.emailId);
    const email = await emails.getEmail(id);
    if (email) return { email, verp: tag === undefined ? {} : { tag } };
  }
  if (report.messageId !== undefined) {
    const id = idOfMessageId(report.messageId);
    const email = id !== undefined && isStorableText(id) ? await emails.getEmail(id) : undefined;
    const own = comparableMessageId(email?.messageId);
    if (email && own !== undefined && own === comparableMessageId(report.messageId)) return { email };
  }
  if (report.providerMessageId !== undefined && isStorableText(report.providerMessageId)) {
    const email = await emails.findEmailByProviderMessageId(report.providerMessageId);
    if (email) return { email };
  }
  return undefined;
}
