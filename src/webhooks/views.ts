import type { AttemptRecord, DeliveryRecord, DomainEvent, WebhookRecord } from "../ports/storage/index.js";
import { isoFromMs } from "../time.js";

/**
 * What callers see of webhooks, shaped as the resend SDK's response types
 * (node_modules/resend: `Webhook`, `GetWebhookResponseSuccess`, `WebhookEventLog`,
 * `GetWebhookEventResponseSuccess`, `WebhookEventAttempt`): snake_case, lists as
 * `{object: "list", has_more, data}`.
 */

export interface WebhookSummaryView {
  id: string;
  endpoint: string;
  created_at: string;
  status: "enabled" | "disabled";
  events: string[];
  /**
   * flagpost's addition, only while the endpoint is failing: when its current run of failed
   * attempts began (an endpoint failing for 5 days is disabled; docs/webhooks.md).
   */
  failing_since?: string;
}

export interface WebhookView extends WebhookSummaryView {
  object: "webhook";
  signing_secret: string;
}

export interface WebhookEventLogView {
  id: string;
  type: string;
  created_at: string;
  status: DeliveryRecord["status"];
}

export interface WebhookEventView extends WebhookEventLogView {
  object: "webhook_event";
  next_attempt_at: string | null;
  /** The body every attempt POSTs: `{type, created_at, data}`. */
  payload: { type: string; created_at: string; data: Record<string, unknown> };
}

export interface WebhookAttemptView {
  id: string;
  http_status_code: number;
  response: string;
  sent_at: string;
  /** flagpost's addition: how long the attempt took. */
  duration_ms: number;
}

export function summaryView(w: WebhookRecord): WebhookSummaryView {
  const view: WebhookSummaryView = {
    id: w.id,
    endpoint: w.endpoint,
    created_at: isoFromMs(w.createdAt),
    status: w.status,
    events: [...w.events],
  };
  if (w.failingSince !== undefined) view.failing_since = isoFromMs(w.failingSince);
  return view;
}

export function webhookView(w: WebhookRecord): WebhookView {
  return { object: "webhook", ...summaryView(w), signing_secret: w.secret };
}

export function eventLogView(d: DeliveryRecord): WebhookEventLogView {
  return { id: d.eventId, type: d.eventType, created_at: isoFromMs(d.createdAt), status: d.status };
}

export function eventView(d: DeliveryRecord, e: DomainEvent): WebhookEventView {
  const open = d.status === "pending" || d.status === "attempting";
  return {
    object: "webhook_event",
    ...eventLogView(d),
    next_attempt_at: open ? isoFromMs(d.nextAttemptAt) : null,
    payload: { type: e.type, created_at: isoFromMs(e.createdAt), data: e.data },
  };
}

export function attemptView(a: AttemptRecord): WebhookAttemptView {
  return {
    id: a.id,
    http_status_code: a.statusCode,
    response: a.response,
    sent_at: isoFromMs(a.sentAt),
    duration_ms: a.durationMs,
  };
}
