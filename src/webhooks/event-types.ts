/**
 * The event types an endpoint may subscribe to (the resend SDK's WebhookEventPayload types, plus flagpost's flag.* events). The email and
 * suppression ones carry the resend SDK's `WebhookEventPayload` shapes; the flag ones carry the
 * flag. A subscription to any other name is refused (422).
 */
export const WEBHOOK_EVENT_TYPES = [
  "email.sent",
  "email.scheduled",
  "email.delivered",
  "email.delivery_delayed",
  "email.bounced",
  "email.complained",
  "email.failed",
  "email.suppressed",
  "suppression.added",
  "suppression.removed",
  "flag.created",
  "flag.updated",
  "flag.deleted",
  "domain.updated",
  "domain.paused",
] as const;
