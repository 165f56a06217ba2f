import type {
  DeliveryClaimCap,
  AttemptRecord,
  ClaimedDelivery,
  DeliveryOutcome,
  DeliveryRecord,
  DomainEvent,
  PageRequest,
  WebhookDeliveryRepository,
} from "../storage/index.js";
import { type MemoryWebhookState, pageOf } from "./memory-webhook-state.js";

const byDue = (a: DeliveryRecord, b: DeliveryRecord) =>
  a.nextAttemptAt < b.nextAttemptAt
    ? -1
    : a.nextAttemptAt > b.nextAttemptAt
      ? 1
      : a.id < b.id
        ? -1
        : a.id > b.id
          ? 1
          : 0;

/** Still to be delivered: the deliveries claims and lease releases are about. */
const isOpen = (d: DeliveryRecord) => d.status === "pending" || d.status === "attempting";

export class MemoryWebhookDeliveryRepository implements WebhookDeliveryRepository {
  readonly #state: MemoryWebhookState;

  constructor(state: MemoryWebhookState) {
    this.#state = state;
  }

  async claimDueDeliveries(
    now: string,
    limit: number,
    leaseMs: number,
    owner: string,
    cap?: DeliveryClaimCap,
  ): Promise<ClaimedDelivery[]> {
    const due: DeliveryRecord[] = [];
    const taken = new Map<string, number>();
    const candidates = [...this.#state.deliveries.values()]
      .filter((d) => isOpen(d) && d.nextAttemptAt <= now && (d.leaseUntil === undefined || d.leaseUntil <= now))
      .sort(byDue);
    for (const delivery of candidates) {
      if (due.length >= limit) break;
      const held = (cap?.busy.get(delivery.webhookId) ?? 0) + (taken.get(delivery.webhookId) ?? 0);
      if (cap && held >= cap.perWebhook) continue;
      taken.set(delivery.webhookId, (taken.get(delivery.webhookId) ?? 0) + 1);
      due.push(delivery);
    }
    const leaseUntil = new Date(Date.parse(now) + leaseMs).toISOString();
    return due.map((delivery) => {
      delivery.leaseOwner = owner;
      delivery.leaseUntil = leaseUntil;
      delivery.attempts += 1;
      return structuredClone({
        ...delivery,
        event: this.#state.events.get(delivery.eventId)!,
        webhook: this.#state.webhooks.get(delivery.webhookId)!,
      });
    });
  }

  async renewDeliveryLeases(ids: readonly string[], owner: string, until: string): Promise<string[]> {
    return ids.filter((id) => {
      const delivery = this.#state.deliveries.get(id);
      if (delivery?.leaseOwner !== owner) return false;
      delivery.leaseUntil = until;
      return true;
    });
  }

  async listDeliveryLeaseOwners(now: string): Promise<string[]> {
    const owners = new Set<string>();
    for (const d of this.#state.deliveries.values())
      if (isOpen(d) && d.leaseOwner !== undefined && d.leaseUntil !== undefined && d.leaseUntil > now)
        owners.add(d.leaseOwner);
    return [...owners];
  }

  async releaseDeliveryLeases(owners: readonly string[]): Promise<number> {
    let freed = 0;
    for (const d of this.#state.deliveries.values()) {
      if (!isOpen(d) || d.leaseOwner === undefined || !owners.includes(d.leaseOwner)) continue;
      delete d.leaseOwner;
      delete d.leaseUntil;
      freed += 1;
    }
    return freed;
  }

  onDeliveriesStored(listener: () => void): () => void {
    const own = () => listener(); // one registration per call, even for the same function
    this.#state.storedListeners.add(own);
    return () => this.#state.storedListeners.delete(own);
  }

  async recordDeliveryOutcomes(outcomes: readonly DeliveryOutcome[]): Promise<boolean[]> {
    // No await between them: the outcomes apply together, as one write would.
    return outcomes.map((o) => {
      const delivery = this.#state.deliveries.get(o.id);
      if (!delivery || delivery.leaseOwner !== o.leaseOwner) return false;
      delivery.status = o.next.status;
      if (o.next.status === "attempting") delivery.nextAttemptAt = o.next.nextAttemptAt;
      if (o.attempt) {
        delivery.lastAttemptAt = o.attempt.sentAt;
        this.#state.attempts.push(structuredClone(o.attempt));
      }
      delete delivery.leaseOwner;
      delete delivery.leaseUntil;
      const webhook = this.#state.webhooks.get(o.webhookId);
      if (webhook && o.endpoint && "succeeded" in o.endpoint) delete webhook.failingSince;
      else if (webhook && o.endpoint && "failedAt" in o.endpoint) {
        webhook.failingSince ??= o.endpoint.failedAt;
        if (webhook.status === "enabled" && webhook.failingSince <= o.endpoint.disableIfFailingSince)
          webhook.status = "disabled";
      }
      return true;
    });
  }

  async listDeliveries(webhookId: string, page: PageRequest): Promise<DeliveryRecord[]> {
    return pageOf(
      [...this.#state.deliveries.values()].filter((d) => d.webhookId === webhookId),
      (d) => d.eventId,
      page,
    );
  }

  async getDelivery(
    webhookId: string,
    eventId: string,
  ): Promise<{ delivery: DeliveryRecord; event: DomainEvent } | undefined> {
    const delivery = this.#state.findDelivery(webhookId, eventId);
    return delivery && structuredClone({ delivery, event: this.#state.events.get(eventId)! });
  }

  async replayDelivery(webhookId: string, eventId: string, now: string): Promise<DeliveryRecord | undefined> {
    const delivery = this.#state.findDelivery(webhookId, eventId);
    if (!delivery) return undefined;
    Object.assign(delivery, { status: "pending", attempts: 0, nextAttemptAt: now });
    if (delivery.leaseUntil === undefined || delivery.leaseUntil <= now) {
      delete delivery.leaseOwner;
      delete delivery.leaseUntil;
    }
    return structuredClone(delivery);
  }

  async countPendingDeliveries(): Promise<number> {
    let pending = 0;
    for (const delivery of this.#state.deliveries.values()) if (isOpen(delivery)) pending += 1;
    return pending;
  }

  async listAttempts(webhookId: string, eventId: string, page: PageRequest): Promise<AttemptRecord[]> {
    const delivery = this.#state.findDelivery(webhookId, eventId);
    return pageOf(
      this.#state.attempts.filter((a) => a.deliveryId === delivery?.id),
      (a) => a.id,
      page,
    );
  }
}
