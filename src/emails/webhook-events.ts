import { uuidv7 } from "../ids.js";
import type { DomainEvent, EmailRecord, EpochMs, SuppressionRecord } from "../ports/storage/index.js";
import { isoFromMs } from "../time.js";
import type { EmailBounce } from "./report-envelope.js";

/** The email event types webhooks carry, as the resend SDK's `WebhookEvent` names them. */
export type EmailWebhookType =
  | "email.sent"
  | "email.scheduled"
  | "email.delivered"
  | "email.delivery_delayed"
  | "email.bounced"
  | "email.complained"
  | "email.failed"
  | "email.suppressed";

/**
 * The resend SDK's `BaseEmailEventData` of an email: `created_at` is when the email was accepted,
 * `message_id` its Message-ID header, `tags` its tags as an object (as Resend sends them).
 */
export function emailEventData(email: EmailRecord): Record<string, unknown> {
  const data: Record<string, unknown> = {
    created_at: isoFromMs(email.createdAt),
    email_id: email.id,
    message_id: email.messageId,
    from: email.content.from,
    to: [...email.content.to],
    subject: email.content.subject,
  };
  if (email.content.tags?.length) data.tags = Object.fromEntries(email.content.tags.map((t) => [t.name, t.value]));
  return data;
}

/**
 * A domain event about an email at time `at`: `{type, created_at: at as ISO text, data}` with the
 * resend SDK's payload, plus `extra` (`bounce`, `failed`, `suppressed`) for the types that have it.
 */
export function emailDomainEvent(
  type: EmailWebhookType,
  email: EmailRecord,
  at: EpochMs,
  extra: Record<string, unknown> = {},
): DomainEvent {
  return { id: uuidv7(at), type, createdAt: at, data: { ...emailEventData(email), ...extra } };
}

/**
 * The events an email status change emits: `email.<status>`, with `bounce` or `failed` details
 * (`bounce`: the resend SDK's `EmailBounce` with the reason and every bounced recipient, as the
 * reports or the refusals gave it; else a permanent bounce with `reason` as its message); an email
 * that goes straight from queued to delivered was sent too, so `email.sent` comes first. A
 * cancellation emits nothing: the resend SDK has no event for it.
 */
export function transitionDomainEvents(
  email: EmailRecord,
  to: string,
  at: EpochMs,
  reason?: string,
  bounce?: EmailBounce,
): DomainEvent[] {
  const events: DomainEvent[] = [];
  if (to === "delivered" && email.sentAt === undefined) events.push(emailDomainEvent("email.sent", email, at));
  switch (to) {
    case "sent":
    case "delivered":
    case "complained":
      events.push(emailDomainEvent(`email.${to}`, email, at));
      break;
    case "bounced":
      events.push(
        emailDomainEvent("email.bounced", email, at, {
          bounce: bounce ?? { type: "Permanent", subType: "General", message: reason ?? "", recipients: [] },
        }),
      );
      break;
    case "failed":
      events.push(emailDomainEvent("email.failed", email, at, { failed: { reason: reason ?? "" } }));
      break;
  }
  return events;
}

/** `suppression.added` / `suppression.removed`: the resend SDK's `SuppressionEventData` of the entry. */
export function suppressionDomainEvent(
  type: "suppression.added" | "suppression.removed",
  entry: SuppressionRecord,
  at: EpochMs,
): DomainEvent {
  return {
    id: uuidv7(at),
    type,
    createdAt: at,
    data: {
      id: entry.id,
      email: entry.email,
      origin: entry.origin,
      source_id: entry.sourceId ?? null,
      created_at: isoFromMs(entry.createdAt),
    },
  };
}
