import type {
  DeliveryClaimCap,
  AttemptRecord,
  ClaimedDelivery,
  DeliveryOutcome,
  DeliveryRecord,
  DomainEvent,
  PageRequest,
  WebhookDeliveryRepository,
} from "../ports/storage/index.js";
import { MemoryLeases, unlease } from "./memory-leases.js";
import { copy } from "./memory-table.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";

/** Still to be delivered: the deliveries claims and lease releases are about. */
const isOpen = (d: DeliveryRecord) => d.status === "pending" || d.status === "attempting";

export class MemoryWebhookDeliveryRepository implements WebhookDeliveryRepository {
  readonly #leases: MemoryLeases<DeliveryRecord>;

  constructor(private readonly state: MemoryWebhookState) {
    this.#leases = new MemoryLeases(state.deliveries, isOpen);
  }

  async claimDueDeliveries(
    now: string,
    limit: number,
    leaseMs: number,
    owner: string,
    cap?: DeliveryClaimCap,
  ): Promise<ClaimedDelivery[]> {
    const taken = new Map<string, number>();
    const fair = ({ webhookId }: DeliveryRecord) => {
      const held = (cap?.busy.get(webhookId) ?? 0) + (taken.get(webhookId) ?? 0);
      if (cap && held >= cap.perWebhook) return false;
      taken.set(webhookId, (taken.get(webhookId) ?? 0) + 1);
      return true;
    };
    return this.#leases.claim(now, limit, leaseMs, owner, fair).map((delivery) =>
      copy({
        ...delivery,
        event: this.state.events.get(delivery.eventId)!,
        webhook: this.state.webhooks.get(delivery.webhookId)!,
      }),
    );
  }

  async renewDeliveryLeases(ids: readonly string[], owner: string, until: string): Promise<string[]> {
    return this.#leases.renew(ids, owner, until);
  }

  async listDeliveryLeaseOwners(now: string): Promise<string[]> {
    return this.#leases.owners(now);
  }

  async releaseDeliveryLeases(owners: readonly string[]): Promise<number> {
    return this.#leases.release(owners);
  }

  onDeliveriesStored(listener: () => void): () => void {
    const own = () => listener(); // one registration per call, even for the same function
    this.state.storedListeners.add(own);
    return () => this.state.storedListeners.delete(own);
  }

  async recordDeliveryOutcomes(outcomes: readonly DeliveryOutcome[]): Promise<boolean[]> {
    // No await between them: the outcomes apply together, as one write would.
    return outcomes.map(({ id, leaseOwner, next, attempt, webhookId, endpoint }) => {
      const delivery = this.state.deliveries.get(id);
      if (!delivery || delivery.leaseOwner !== leaseOwner) return false;
      delivery.status = next.status;
      if (next.status === "attempting") delivery.nextAttemptAt = next.nextAttemptAt;
      if (attempt) {
        delivery.lastAttemptAt = attempt.sentAt;
        this.state.attempts.set(attempt.id, copy(attempt));
      }
      unlease(delivery);
      const webhook = this.state.webhooks.get(webhookId);
      if (webhook && endpoint && "succeeded" in endpoint) delete webhook.failingSince;
      else if (webhook && endpoint && "failedAt" in endpoint) {
        webhook.failingSince ??= endpoint.failedAt;
        if (webhook.status === "enabled" && webhook.failingSince <= endpoint.disableIfFailingSince)
          webhook.status = "disabled";
      }
      return true;
    });
  }

  async listDeliveries(webhookId: string, page: PageRequest): Promise<DeliveryRecord[]> {
    return this.state.deliveries.page(
      page,
      (d) => d.webhookId === webhookId,
      (d) => d.eventId,
    );
  }

  async getDelivery(
    webhookId: string,
    eventId: string,
  ): Promise<{ delivery: DeliveryRecord; event: DomainEvent } | undefined> {
    const delivery = this.state.findDelivery(webhookId, eventId);
    return delivery && copy({ delivery, event: this.state.events.get(eventId)! });
  }

  async replayDelivery(webhookId: string, eventId: string, now: string): Promise<DeliveryRecord | undefined> {
    const delivery = this.state.findDelivery(webhookId, eventId);
    if (!delivery) return undefined;
    Object.assign(delivery, { status: "pending", attempts: 0, nextAttemptAt: now });
    if (delivery.leaseUntil === undefined || delivery.leaseUntil <= now) unlease(delivery);
    return copy(delivery);
  }

  async countPendingDeliveries(): Promise<number> {
    return [...this.state.deliveries.where(isOpen)].length;
  }

  async listAttempts(webhookId: string, eventId: string, page: PageRequest): Promise<AttemptRecord[]> {
    const delivery = this.state.findDelivery(webhookId, eventId);
    return this.state.attempts.page(page, (a) => a.deliveryId === delivery?.id);
  }
}
