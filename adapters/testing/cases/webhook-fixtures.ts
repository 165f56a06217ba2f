import type { DeliveryOutcome, WebhookRecord } from "../../../src/ports/storage/webhooks.js";
import type { DomainEvent } from "../../../src/ports/storage/domain-events.js";
import type { EmailRecord } from "../../../src/ports/storage/emails.js";
import type { FlagRecord } from "../../../src/ports/storage/flags.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import { flagWrites } from "../../../src/flags/store/index.js";
import { flagRecord } from "./flag-fixtures.js";

export const T0 = Date.parse("2026-06-01T10:00:00.000Z");
export const iso = (ms: number) => new Date(ms).toISOString();
let counter = 0;

/** Ids that sort by creation, as uuidv7 ids do. */
export function sortedId(n: number): string {
  counter += 1;
  return `0198${String(n).padStart(4, "0")}-0000-7000-8000-${String(counter).padStart(12, "0")}`;
}

export function webhook(overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id: sortedId(1),
    endpoint: "https://hooks.example.com/flagpost",
    events: ["flag.created"],
    status: "enabled",
    secret: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0",
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** An endpoint subscribed to `events`, stored: where the domain events a test writes are delivered. */
export async function subscribedWebhook(storage: Storage, events: WebhookRecord["events"]): Promise<WebhookRecord> {
  const hook = webhook({ events });
  await storage.webhooks.insertWebhook(hook);
  return hook;
}

export function domainEvent(type: string, data: Record<string, unknown> = {}, at = T0): DomainEvent {
  return { id: sortedId(2), type, createdAt: at, data: { ...data, note: "Grüße ✓" } };
}

export function flag(key: string): FlagRecord {
  return flagRecord(key, sortedId(3), { createdAt: T0, updatedAt: T0 });
}

export function email(overrides: Partial<EmailRecord> = {}): EmailRecord {
  const id = overrides.id ?? sortedId(4);
  return {
    id,
    content: { from: "hello@example.com", to: ["ann@example.com"], subject: "Hi", text: "hi" },
    status: "queued",
    messageId: `<${id}@example.com>`,
    createdAt: T0,
    attempts: 0,
    nextAttemptAt: T0,
    ...overrides,
  };
}

/** Every delivery of every endpoint given, as `endpointIndex:eventType`, sorted. */
export async function deliveriesOf(storage: Storage, hooks: WebhookRecord[]): Promise<string[]> {
  const seen: string[] = [];
  for (const [i, hook] of hooks.entries()) {
    for (const d of await storage.webhookDeliveries.listDeliveries(hook.id, { limit: 100 }))
      seen.push(`${i}:${d.eventType}`);
  }
  return seen.sort();
}

export const LEASE = 30_000;

/** Stores `count` flag.created events for one endpoint; returns the endpoint and the events' ids. */
export async function withDeliveries(storage: Storage, count: number, at = T0) {
  const hook = await subscribedWebhook(storage, ["flag.created"]);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const event = domainEvent("flag.created", { i }, at + i);
    ids.push(event.id);
    await flagWrites(storage).insert(flag(`f${i}-${event.id.slice(-6)}`), undefined, [event]);
  }
  return { hook, ids };
}

export function attemptOf(
  d: { id: string; webhookId: string; eventId: string },
  statusCode: number,
  at = T0,
): NonNullable<DeliveryOutcome["attempt"]> {
  return {
    id: sortedId(7),
    deliveryId: d.id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    sentAt: at,
    statusCode,
    durationMs: 12,
    response: statusCode === 0 ? "connect ECONNREFUSED" : "ok ✓",
  };
}
