import type { EmailEvent, EmailRecord, EpochMs } from "../ports/storage/index.js";
import { emailRecipients } from "./message.js";
import type { BounceReason, BounceSummary } from "./reports.js";

/**
 * What an email's events say about the attempt reports answer (docs/emails.md, "Final states"):
 * who the next hop accepted, when, with which return path; which recipients already have their
 * final word; and the bounce an email, or its webhook, carries.
 */

/** The envelope of the email's `sent` attempt: the recipients the next hop accepted. */
export interface SentEnvelope {
  /** Accepted recipients, bare and lower-cased: suppressed and refused addresses are not among them. */
  recipients: string[];
  /** When the attempt was recorded: reports are placed after it. */
  at: EpochMs;
  /** The return path it went out with (VERP), when there was a bounce domain. */
  returnPath?: string;
  /** False while the email is still queued and only partial attempts reached some recipients. */
  complete: boolean;
}

/** One bounced recipient, as the email's `bounce.recipients` lists it. */
export interface BouncedRecipient {
  email: string;
  status?: string;
  reason?: BounceReason;
  diagnostic?: string;
}

/** `bounce` of a bounced email and of its `email.bounced` webhook: every bounced recipient listed. */
export interface EmailBounce extends BounceSummary {
  recipients: BouncedRecipient[];
}

/** One bounced recipient with its classification, before it is summed up. */
export interface RecipientBounceFacts extends BouncedRecipient {
  type: BounceSummary["type"];
  subType: string;
}

const lowerList = (value: unknown): string[] =>
  Array.isArray(value) ? [...new Set(value.map((v) => String(v).toLowerCase()))] : [];
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** A worker's own event (no `source`): a report's events name where they came from. */
const isWorkerEvent = (event: EmailEvent): boolean => event.detail?.source === undefined;

/**
 * The newest `sent` (or transport-`delivered`) attempt's envelope; while the email is queued
 * after a partial attempt, the recipients partial attempts reached (`complete: false`).
 * Undefined when no attempt reached anyone.
 */
export function sentEnvelope(email: EmailRecord, events: readonly EmailEvent[]): SentEnvelope | undefined {
  const sent = events.findLast((e) => (e.type === "sent" || e.type === "delivered") && isWorkerEvent(e));
  if (sent) {
    let recipients = lowerList(sent.detail?.accepted);
    if (recipients.length === 0) {
      // A transport that lists no accepted recipients: everyone but the suppressed and the refused.
      const rejected = Array.isArray(sent.detail?.rejected) ? (sent.detail.rejected as { recipient?: unknown }[]) : [];
      const left = new Set([...lowerList(sent.detail?.suppressed), ...lowerList(rejected.map((r) => r.recipient))]);
      recipients = emailRecipients(email).filter((r) => !left.has(r));
    }
    const returnPath = text(sent.detail?.return_path);
    return { recipients, at: sent.at, complete: true, ...(returnPath === undefined ? {} : { returnPath }) };
  }
  const partial = events.filter((e) => e.type === "delivery_delayed" && e.detail?.partial === true && isWorkerEvent(e));
  if (partial.length === 0) return undefined;
  const returnPath = text(partial.at(-1)!.detail?.return_path);
  return {
    recipients: [...new Set(partial.flatMap((e) => lowerList(e.detail?.accepted)))],
    at: partial[0]!.at,
    complete: false,
    ...(returnPath === undefined ? {} : { returnPath }),
  };
}

/** Each recipient's final report event (delivered or bounced), the first one recorded. */
export function finalReports(events: readonly EmailEvent[]): Map<string, EmailEvent> {
  const finals = new Map<string, EmailEvent>();
  for (const event of events) {
    const recipient = text(event.detail?.recipient);
    if (recipient === undefined || isWorkerEvent(event)) continue;
    if ((event.type === "delivered" || event.type === "bounced") && !finals.has(recipient))
      finals.set(recipient, event);
  }
  return finals;
}

/** The classification a bounced report event recorded for its recipient. */
export function bounceFactsOf(event: EmailEvent): RecipientBounceFacts {
  const d = event.detail ?? {};
  const type = d.bounce_type === "Permanent" || d.bounce_type === "Transient" ? d.bounce_type : "Undetermined";
  return recipientFacts({
    email: text(d.recipient) ?? "",
    type,
    subType: text(d.sub_type) ?? "General",
    status: text(d.status),
    reason: text(d.reason) as BounceReason | undefined,
    diagnostic: text(d.diagnostic),
  });
}

/** The facts without the fields that are not known. */
export function recipientFacts(facts: {
  email: string;
  type: BounceSummary["type"];
  subType: string;
  status?: string | undefined;
  reason?: BounceReason | undefined;
  diagnostic?: string | undefined;
}): RecipientBounceFacts {
  const out: RecipientBounceFacts = { email: facts.email, type: facts.type, subType: facts.subType };
  if (facts.status !== undefined) out.status = facts.status;
  if (facts.reason !== undefined) out.reason = facts.reason;
  if (facts.diagnostic !== undefined) out.diagnostic = facts.diagnostic;
  return out;
}

/**
 * The email's bounce from its bounced recipients: type, sub-type, reason and message of the
 * first Permanent one (else of the first), and every recipient with its status, reason and words.
 */
export function emailBounce(bounced: readonly RecipientBounceFacts[]): EmailBounce {
  const lead = bounced.find((b) => b.type === "Permanent") ?? bounced[0];
  const bounce: EmailBounce = {
    type: lead?.type ?? "Undetermined",
    subType: lead?.subType ?? "General",
    message: lead?.diagnostic ?? lead?.status ?? "",
    recipients: bounced.map(({ type: _t, subType: _s, ...recipient }) => recipient),
  };
  if (lead?.reason !== undefined) bounce.reason = lead.reason;
  return bounce;
}
