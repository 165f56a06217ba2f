import type { DeliveryRecord, WebhookDeliveryRepository } from "../ports/storage/index.js";
import { MemoryLeases, unlease } from "./memory-leases.js";
import { copy } from "./memory-table.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";

/** Still to be delivered: the deliveries claims and lease releases are about. */
const isOpen = (d: DeliveryRecord) => d.status === "pending" || d.status === "attempting";

/** Webhook deliveries and their attempts in memory; each method runs without awaiting, so it is atomic in this process. */
export function memoryWebhookDeliveries(state: MemoryWebhookState): WebhookDeliveryRepository {
  const leases = new MemoryLeases(state.deliveries, isOpen);
  return {
    async claimDueDeliveries(now, limit, leaseMs, owner, cap) {
      const taken = new Map<string, number>();
      const fair = ({ webhookId }: DeliveryRecord) => {
        const held = (cap?.busy.get(webhookId) ?? 0) + (taken.get(webhookId) ?? 0);
        if (cap && held >= cap.perWebhook) return false;
        taken.set(webhookId, (taken.get(webhookId) ?? 0) + 1);
        return true;
      };
      return leases.claim(now, limit, leaseMs, owner, fair).map((delivery) =>
        copy({
          ...delivery,
          event: state.events.get(delivery.eventId)!,
          webhook: state.webhooks.get(delivery.webhookId)!,
        }),
      );
    },
    renewDeliveryLeases: async (ids, owner, until) => leases.renew(ids, owner, until),
    listDeliveryLeaseOwners: async (now) => leases.owners(now),
    releaseDeliveryLeases: async (owners) => leases.release(owners),
    onDeliveriesStored(listener) {
      const own = () => listener(); // one registration per call, even for the same function
      state.storedListeners.add(own);
      return () => state.storedListeners.delete(own);
    },
    // No await between them: the outcomes apply together, as one write would.
    recordDeliveryOutcomes: async (outcomes) =>
      outcomes.map(({ id, leaseOwner, next, attempt, webhookId, endpoint }) => {
        const delivery = state.deliveries.get(id);
        if (!delivery || delivery.leaseOwner !== leaseOwner) return false;
        delivery.status = next.status;
        if (next.status === "attempting") delivery.nextAttemptAt = next.nextAttemptAt;
        if (attempt) {
          delivery.lastAttemptAt = attempt.sentAt;
          state.attempts.set(attempt.id, copy(attempt));
        }
        unlease(delivery);
        const webhook = state.webhooks.get(webhookId);
        if (webhook && endpoint && "succeeded" in endpoint) delete webhook.failingSince;
        else if (webhook && endpoint && "failedAt" in endpoint) {
          webhook.failingSince ??= endpoint.failedAt;
          if (webhook.status === "enabled" && webhook.failingSince <= endpoint.disableIfFailingSince)
            webhook.status = "disabled";
        }
        return true;
      }),
    listDeliveries: async (webhookId, page) =>
      state.deliveries.page(
        page,
        (d) => d.webhookId === webhookId,
        (d) => d.eventId,
      ),
    async getDelivery(webhookId, eventId) {
      const delivery = state.findDelivery(webhookId, eventId);
      return delivery && copy({ delivery, event: state.events.get(eventId)! });
    },
    async replayDelivery(webhookId, eventId, now) {
      const delivery = state.findDelivery(webhookId, eventId);
      if (!delivery) return undefined;
      Object.assign(delivery, { status: "pending", attempts: 0, nextAttemptAt: now });
      if (delivery.leaseUntil === undefined || delivery.leaseUntil <= now) unlease(delivery);
      return copy(delivery);
    },
    countPendingDeliveries: async () => [...state.deliveries.where(isOpen)].length,
    async listAttempts(webhookId, eventId, page) {
      const delivery = state.findDelivery(webhookId, eventId);
      return state.attempts.page(page, (a) => a.deliveryId === delivery?.id);
    },
  };
}
