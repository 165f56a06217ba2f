import type { EmailEvent, EmailEventType, EmailListEntry, EmailRecord, EmailStatus } from "../ports/storage/index.js";
import { isoFromMs } from "../time.js";
import type { EmailBounce } from "./report-envelope.js";

/**
 * What callers see of an email: snake_case, as Resend's API (and so the `resend` SDK) reads it.
 * Fields that were not set are left out rather than sent as null.
 */

/** The answer to a send: docs/api.md's `{id, from, to, subject, status, created_at}`. */
export interface EmailSummary {
  id: string;
  from: string;
  to: string[];
  subject: string;
  status: EmailStatus;
  created_at: string;
}

/** GET /v1/emails/{id}. Headers and attachments are not returned (docs/emails.md). */
export interface EmailView extends EmailSummary {
  object: "email";
  cc?: string[];
  bcc?: string[];
  reply_to?: string[];
  html?: string;
  text?: string;
  tags?: { name: string; value: string }[];
  scheduled_at?: string;
  sent_at?: string;
  delivered_at?: string;
  /**
   * The newest event's name: a status, or `scheduled`, `delivery_delayed`, `suppressed` (as
   * Resend's `last_event`; it may differ from `status`).
   */
  last_event: EmailEventType;
  /** Why a `failed` email failed: `suppressed`, `retry_budget_spent`, `permanent_error`. */
  failure_reason?: string;
  /** The Message-ID header the email carries on every attempt. */
  message_id: string;
  /** A bounced email's bounce, as its `email.bounced` webhook carried it (every bounced recipient). */
  bounce?: EmailBounce;
}

/** One entry of GET /v1/emails (Resend's `ListEmail`): the email without bodies and tags. */
export type EmailListView = Omit<EmailView, "object" | "html" | "text" | "tags">;

export interface EmailEventView {
  type: EmailEventType;
  occurred_at: string;
  detail?: Record<string, unknown>;
}

export interface BatchResult {
  data: { id: string }[];
  /** Only with `validation: "permissive"`: the emails refused, by index in the request. */
  errors?: { index: number; message: string }[];
}

export function toSummary(email: EmailRecord): EmailSummary {
  return {
    id: email.id,
    from: email.content.from,
    to: [...email.content.to],
    subject: email.content.subject,
    status: email.status,
    created_at: isoFromMs(email.createdAt),
  };
}

export function toView(email: EmailRecord): EmailView {
  const c = email.content;
  const view: EmailView = {
    object: "email",
    ...toSummary(email),
    last_event: lastEventOf(email),
    message_id: email.messageId,
  };
  addRecipientLists(view, c);
  if (c.html !== undefined) view.html = c.html;
  if (c.text !== undefined) view.text = c.text;
  if (c.tags?.length) view.tags = c.tags.map((t) => ({ ...t }));
  addProgress(view, email);
  return view;
}

export function toListView(entry: EmailListEntry): EmailListView {
  const c = entry.content;
  const view: EmailListView = {
    id: entry.id,
    from: c.from,
    to: [...c.to],
    subject: c.subject,
    status: entry.status,
    created_at: isoFromMs(entry.createdAt),
    last_event: lastEventOf(entry),
    message_id: entry.messageId,
  };
  addRecipientLists(view, c);
  addProgress(view, entry);
  return view;
}

/** The cc, bcc and reply-to lists an email has, copied: an empty or absent one is left out. */
function addRecipientLists(view: EmailListView, content: EmailListEntry["content"]): void {
  if (content.cc?.length) view.cc = [...content.cc];
  if (content.bcc?.length) view.bcc = [...content.bcc];
  if (content.replyTo?.length) view.reply_to = [...content.replyTo];
}

/** How far the email got: the times it was scheduled for, sent and delivered, and why it failed, when known. */
function addProgress(
  view: EmailListView,
  email: Pick<EmailListEntry, "scheduledAt" | "sentAt" | "deliveredAt" | "failureReason">,
): void {
  if (email.scheduledAt !== undefined) view.scheduled_at = isoFromMs(email.scheduledAt);
  if (email.sentAt !== undefined) view.sent_at = isoFromMs(email.sentAt);
  if (email.deliveredAt !== undefined) view.delivered_at = isoFromMs(email.deliveredAt);
  if (email.failureReason !== undefined) view.failure_reason = email.failureReason;
}

/** The newest event's type; an email with only its first event says `scheduled` or `queued`. */
export function lastEventOf(email: Pick<EmailRecord, "lastEvent" | "status" | "scheduledAt">): EmailEventType {
  return email.lastEvent ?? (email.status === "queued" && email.scheduledAt !== undefined ? "scheduled" : email.status);
}

export function toEventView(event: EmailEvent): EmailEventView {
  return {
    type: event.type,
    occurred_at: isoFromMs(event.at),
    ...(event.detail === undefined ? {} : { detail: event.detail }),
  };
}
