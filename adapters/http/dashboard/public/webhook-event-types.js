// Generated from src/webhooks/event-types.ts by adapters/http/dashboard/webhook-event-types.ts: do not edit.
export const WEBHOOK_EVENT_TYPES = ["email.sent","email.scheduled","email.delivered","email.delivery_delayed","email.bounced","email.complained","email.failed","email.suppressed","suppression.added","suppression.removed","flag.created","flag.updated","flag.deleted","domain.updated"];
