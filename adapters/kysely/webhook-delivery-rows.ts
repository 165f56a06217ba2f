import type { Insertable, Selectable } from "kysely";
import type { AttemptRecord, DeliveryRecord, DeliveryStatus, DomainEvent } from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import { toNumber } from "./row-codec.js";
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEventsTable } from "./tables.js";

/** Rows of the webhook delivery tables to the port's records, and back (attempts). */

export function toDelivery(row: Selectable<WebhookDeliveriesTable>): DeliveryRecord {
  const record: DeliveryRecord = {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    createdAt: toNumber(row.created_at),
    status: row.status as DeliveryStatus,
    attempts: toNumber(row.attempts),
    nextAttemptAt: toNumber(row.next_attempt_at),
  };
  if (row.last_attempt_at !== null) record.lastAttemptAt = toNumber(row.last_attempt_at);
  if (row.lease_owner !== null) record.leaseOwner = row.lease_owner;
  if (row.lease_until !== null) record.leaseUntil = toNumber(row.lease_until);
  return record;
}

export function toEvent(row: Selectable<WebhookEventsTable>): DomainEvent {
  return {
    id: row.id,
    type: row.type,
    createdAt: toNumber(row.created_at),
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

export function toAttempt(row: Selectable<WebhookAttemptsTable>): AttemptRecord {
  return {
    id: row.id,
    deliveryId: row.delivery_id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    sentAt: toNumber(row.sent_at),
    statusCode: toNumber(row.status_code),
    durationMs: toNumber(row.duration_ms),
    response: row.response,
  };
}

export function attemptRow(a: AttemptRecord): Insertable<WebhookAttemptsTable> {
  return {
    id: a.id,
    delivery_id: a.deliveryId,
    webhook_id: a.webhookId,
    event_id: a.eventId,
    sent_at: checkedEpochMs(a.sentAt, "attempt.sentAt"),
    status_code: a.statusCode,
    duration_ms: Math.round(a.durationMs),
    response: a.response,
  };
}
