import { describe, expect, it } from "vitest";
import type { Storage } from "../../../src/ports/storage/index.js";
import { flagWrites } from "../../../src/flags/store/index.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";
import { deliveriesOf, domainEvent, flag, subscribedWebhook, T0, webhook } from "./webhook-fixtures.js";

const LEASE = 30_000;

async function endpointWithDeliveries(storage: Storage, count: number) {
  const hook = webhook({ events: ["flag.created", "flag.updated"] });
  await storage.webhooks.insertWebhook(hook);
  for (let i = 0; i < count; i++)
    await flagWrites(storage).insert(flag(`lease-${i}`), undefined, [domainEvent("flag.created", { i }, T0 + i)]);
  return hook;
}

/**
 * What the delivery worker needs beyond claims: freeing a dead process's leases at once, hearing
 * of this storage's own new deliveries right after they commit, and the flag as it was for the
 * `flag.updated` payload's changes.
 */
export function webhookLeaseCases(harness: StorageHarness): void {
  describe("webhook delivery leases and notices", () => {
    const storage = useStorage(harness);

    it("lists the owners of live leases and frees the ones of dead owners, keeping attempts", async () => {
      await endpointWithDeliveries(storage(), 3);
      const deliveries = storage().webhookDeliveries;
      await deliveries.claimDueDeliveries(T0 + 10, 1, LEASE, "dead");
      const [held] = await deliveries.claimDueDeliveries(T0 + 10, 1, LEASE, "alive");
      const [done] = await deliveries.claimDueDeliveries(T0 + 10, 1, LEASE, "dead");
      await deliveries.recordDeliveryOutcomes([
        { id: done!.id, webhookId: done!.webhookId, leaseOwner: "dead", next: { status: "success" } },
      ]);
      expect((await deliveries.listDeliveryLeaseOwners(T0 + 10)).sort()).toEqual(["alive", "dead"]);
      expect(await deliveries.listDeliveryLeaseOwners(T0 + 10 + LEASE)).toEqual([]);
      expect(await deliveries.releaseDeliveryLeases([])).toBe(0);
      expect(await deliveries.releaseDeliveryLeases(["dead", "nobody"])).toBe(1);
      expect(await deliveries.listDeliveryLeaseOwners(T0 + 10)).toEqual(["alive"]);
      const again = await deliveries.claimDueDeliveries(T0 + 11, 10, LEASE, "next");
      expect(again).toHaveLength(1);
      expect(again[0]).toMatchObject({ attempts: 2, leaseOwner: "next" });
      expect(again[0]!.id).not.toBe(held!.id);
    });

    it("counts the deliveries still to be made: pending and attempting, not success or failed", async () => {
      const deliveries = storage().webhookDeliveries;
      const count = deliveries.countPendingDeliveries?.bind(deliveries);
      if (count === undefined) return; // optional, like outboxDepth: GET /metrics leaves the series out
      expect(await count()).toBe(0);
      await endpointWithDeliveries(storage(), 4);
      const claimed = await deliveries.claimDueDeliveries(T0 + 10, 3, LEASE, "w");
      const [retried, succeeded, failed] = claimed;
      await deliveries.recordDeliveryOutcomes([
        {
          id: retried!.id,
          webhookId: retried!.webhookId,
          leaseOwner: "w",
          next: { status: "attempting", nextAttemptAt: T0 + 60_000 },
        },
        { id: succeeded!.id, webhookId: succeeded!.webhookId, leaseOwner: "w", next: { status: "success" } },
        { id: failed!.id, webhookId: failed!.webhookId, leaseOwner: "w", next: { status: "failed" } },
      ]);
      expect(await count()).toBe(2);
    });

    it("claims within a per-endpoint cap: a full endpoint's backlog gives way to others' deliveries", async () => {
      const a = webhook({ events: ["flag.created"] });
      const b = webhook({ events: ["flag.created"] });
      await storage().webhooks.insertWebhook(a);
      await storage().webhooks.insertWebhook(b);
      for (let i = 0; i < 5; i++)
        await flagWrites(storage()).insert(flag(`cap-${i}`), undefined, [domainEvent("flag.created", { i }, T0 + i)]);
      const deliveries = storage().webhookDeliveries;
      const count = (claimed: { webhookId: string }[], id: string) => claimed.filter((d) => d.webhookId === id).length;
      const first = await deliveries.claimDueDeliveries(T0 + 10, 10, LEASE, "w", {
        perWebhook: 2,
        busy: new Map([[a.id, 1]]),
      });
      expect([count(first, a.id), count(first, b.id)]).toEqual([1, 2]);
      const second = await deliveries.claimDueDeliveries(T0 + 10, 10, LEASE, "w", {
        perWebhook: 2,
        busy: new Map([
          [a.id, 2],
          [b.id, 0],
        ]),
      });
      expect([count(second, a.id), count(second, b.id)]).toEqual([0, 2]);
      // Without a cap, a claim takes what is due, oldest first.
      expect(await deliveries.claimDueDeliveries(T0 + 10, 10, LEASE, "w")).toHaveLength(5);
    });

    it("keeps a running lease on replay, so the holder's outcome still applies and nobody claims it twice", async () => {
      const hook = await endpointWithDeliveries(storage(), 1);
      const deliveries = storage().webhookDeliveries;
      const [held] = await deliveries.claimDueDeliveries(T0 + 10, 1, LEASE, "w");
      const replayed = await deliveries.replayDelivery(hook.id, held!.eventId, T0 + 20);
      expect(replayed).toMatchObject({
        status: "pending",
        attempts: 0,
        leaseOwner: "w",
        leaseUntil: T0 + 10 + LEASE,
      });
      expect(await deliveries.claimDueDeliveries(T0 + 20, 10, LEASE, "w")).toEqual([]);
      const applied = await deliveries.recordDeliveryOutcomes([
        { id: held!.id, webhookId: hook.id, leaseOwner: "w", next: { status: "success" } },
      ]);
      expect(applied).toEqual([true]);
      const after = await deliveries.replayDelivery(hook.id, held!.eventId, T0 + 30);
      expect(after).toMatchObject({ status: "pending", attempts: 0 });
      expect(after).not.toHaveProperty("leaseOwner");
      expect(await deliveries.claimDueDeliveries(T0 + 30, 10, LEASE, "x")).toHaveLength(1);
    });

    it("tells subscribers after a write that stored deliveries commits, and not otherwise", async () => {
      const hook = await subscribedWebhook(storage(), ["flag.created"]);
      const seen: string[][] = [];
      const unsubscribe = storage().webhookDeliveries.onDeliveriesStored(() => {
        // Whatever a listener reads from then on includes the write's deliveries.
        void deliveriesOf(storage(), [hook]).then((d) => seen.push(d));
      });
      await flagWrites(storage()).insert(flag("nobody-wants"), undefined, [domainEvent("flag.deleted")]);
      await flagWrites(storage()).insert(flag("plain"));
      await flagWrites(storage()).insert(flag("wanted"), undefined, [domainEvent("flag.created")]);
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(seen).toEqual([["0:flag.created"]]);
      unsubscribe();
      await flagWrites(storage()).insert(flag("after"), undefined, [domainEvent("flag.created")]);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen).toHaveLength(1);
    });

    it("builds a flag update's events from the flag as stored and as it was, in the write", async () => {
      await flagWrites(storage()).insert(flag("versions"));
      const before = await storage().flags.get("versions");
      let seen: unknown[] = [];
      const updated = await flagWrites(storage()).update(
        "versions",
        { enabled: true, updatedAt: T0 + 5 },
        undefined,
        (stored, previous) => {
          seen = [stored, previous];
          return [];
        },
      );
      expect(seen).toEqual([updated, before]);
    });
  });
}
