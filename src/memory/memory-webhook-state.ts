import { uuidv7 } from "../ids.js";
import type { AttemptRecord, DeliveryRecord, DomainEvent, PageRequest, WebhookRecord } from "../storage/index.js";

/**
 * What the memory storage keeps for outbound webhooks, shared by its webhook repositories and by
 * the repositories whose writes emit domain events. Each method runs without awaiting, so a write
 * and its events apply together within this process.
 */
export class MemoryWebhookState {
  readonly webhooks = new Map<string, WebhookRecord>();
  readonly events = new Map<string, DomainEvent>();
  /** By delivery id. */
  readonly deliveries = new Map<string, DeliveryRecord>();
  readonly attempts: AttemptRecord[] = [];
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
      const subscribers = [...this.webhooks.values()].filter(
        (w) => w.status === "enabled" && w.events.includes(event.type),
      );
      if (subscribers.length === 0) continue;
      this.events.set(event.id, structuredClone(event));
      stored = true;
      for (const webhook of subscribers) {
        const id = uuidv7(Date.parse(event.createdAt));
        this.deliveries.set(id, {
          id,
          webhookId: webhook.id,
          eventId: event.id,
          eventType: event.type,
          createdAt: event.createdAt,
          status: "pending",
          attempts: 0,
          nextAttemptAt: event.createdAt,
        });
      }
    }
    // After the write that called this has applied: listeners run once the current turn ends.
    if (stored) for (const listener of this.storedListeners) queueMicrotask(listener);
  }

  /** The delivery of this event to this endpoint (the pair is unique). */
  findDelivery(webhookId: string, eventId: string): DeliveryRecord | undefined {
    for (const d of this.deliveries.values()) if (d.webhookId === webhookId && d.eventId === eventId) return d;
    return undefined;
  }
}

/** A page of items newest first by `id(item)`, as the kysely adapter's pageQuery gives it. */
export function pageOf<T>(items: T[], id: (item: T) => string, page: PageRequest): T[] {
  let selected = items.filter(
    (item) =>
      (page.after === undefined || id(item) < page.after) && (page.before === undefined || id(item) > page.before),
  );
  selected.sort((a, b) => (id(a) < id(b) ? 1 : id(a) > id(b) ? -1 : 0));
  if (page.before !== undefined && page.after === undefined)
    selected = selected.slice(Math.max(0, selected.length - page.limit));
  return selected.slice(0, page.limit).map((item) => structuredClone(item));
}
