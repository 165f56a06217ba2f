import { uuidv7 } from "../ids.js";
import type { AttemptRecord, DeliveryRecord, DomainEvent, WebhookRecord } from "../ports/storage/index.js";
import { copy, MemoryTable } from "./memory-table.js";

/**
 * What the memory storage keeps for outbound webhooks, shared by its webhook repositories and by
 * the repositories whose writes emit domain events. Each method runs without awaiting, so a write
 * and its events apply together within this process.
 */
export class MemoryWebhookState {
  readonly webhooks = new MemoryTable<WebhookRecord>((w) => w.id);
  readonly events = new Map<string, DomainEvent>();
  readonly deliveries = new MemoryTable<DeliveryRecord>((d) => d.id);
  readonly attempts = new MemoryTable<AttemptRecord>((a) => a.id);
  /** Told after a write stored deliveries (onDeliveriesStored). */
  readonly storedListeners = new Set<() => void>();

  /**
   * The memory twin of the kysely adapter's recordDomainEvents: one delivery per enabled endpoint
   * subscribed to each event's type, due at the event's time; the event is kept only when some
   * endpoint wants it. Called by writes after their own change applied, in the same turn.
   */
  recordDomainEvents(events: readonly DomainEvent[] | undefined): void {
    let stored = false;
    for (const event of events ?? []) {
      const { id: eventId, type: eventType, createdAt } = event;
      for (const webhook of this.webhooks.where((w) => w.status === "enabled" && w.events.includes(eventType))) {
        const id = uuidv7(createdAt);
        this.events.set(eventId, copy(event));
        stored = true;
        const delivery = { id, webhookId: webhook.id, eventId, eventType, createdAt, nextAttemptAt: createdAt };
        this.deliveries.set(id, { ...delivery, status: "pending", attempts: 0 });
      }
    }
    // After the write that called this has applied: listeners run once the current turn ends.
    if (stored) for (const listener of this.storedListeners) queueMicrotask(listener);
  }

  /** The delivery of this event to this endpoint (the pair is unique). */
  findDelivery(webhookId: string, eventId: string): DeliveryRecord | undefined {
    return this.deliveries.find((d) => d.webhookId === webhookId && d.eventId === eventId);
  }
}
