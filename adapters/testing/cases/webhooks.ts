import { describe, expect, it } from "vitest";
import type { DeliveryOutcome } from "../../../src/ports/storage/webhooks.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import { describeCapability, type StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";
import { attemptOf, LEASE, T0, withDeliveries } from "./webhook-fixtures.js";

export function webhookCases(harness: StorageHarness): void {
  describe("webhook deliveries", () => {
    const storage = useStorage(harness);

    it("claims due deliveries oldest first with their event and endpoint, each once, one more attempt each", async () => {
      const { hook, ids } = await withDeliveries(storage(), 3);
      expect(await storage().webhookDeliveries.claimDueDeliveries(T0 - 1, 10, LEASE, "w1")).toEqual([]);
      const first = await storage().webhookDeliveries.claimDueDeliveries(T0 + 1, 10, LEASE, "w1");
      expect(first.map((d) => d.eventId)).toEqual([ids[0], ids[1]]);
      expect(first[0]).toMatchObject({
        webhookId: hook.id,
        attempts: 1,
        status: "pending",
        leaseOwner: "w1",
        leaseUntil: T0 + 1 + LEASE,
        webhook: hook,
      });
      expect(first[0]!.event).toEqual({
        id: ids[0],
        type: "flag.created",
        createdAt: T0,
        data: { i: 0, note: "Grüße ✓" },
      });
      const second = await storage().webhookDeliveries.claimDueDeliveries(T0 + 10, 10, LEASE, "w2");
      expect(second.map((d) => d.eventId)).toEqual([ids[2]]);
      // A lease that ended makes the delivery claimable again (its worker died).
      const again = await storage().webhookDeliveries.claimDueDeliveries(T0 + 1 + LEASE, 10, LEASE, "w3");
      expect(again.map((d) => d.eventId)).toEqual([ids[0], ids[1]]);
      expect(again[0]!.attempts).toBe(2);
    });

    it("renews only the leases the owner still holds", async () => {
      await withDeliveries(storage(), 2);
      const [a, b] = await storage().webhookDeliveries.claimDueDeliveries(T0 + 5, 10, LEASE, "w");
      await storage().webhookDeliveries.recordDeliveryOutcomes([
        {
          id: b!.id,
          webhookId: b!.webhookId,
          leaseOwner: "w",
          attempt: attemptOf(b!, 200),
          next: { status: "success" },
        },
      ]);
      expect(await storage().webhookDeliveries.renewDeliveryLeases([a!.id, b!.id], "w", T0 + 5 + 2 * LEASE)).toEqual([
        a!.id,
      ]);
      expect(await storage().webhookDeliveries.renewDeliveryLeases([a!.id], "other", T0 + 9 * LEASE)).toEqual([]);
      expect(await storage().webhookDeliveries.claimDueDeliveries(T0 + 5 + LEASE, 10, LEASE, "x")).toEqual([]);
    });

    it("records outcomes only for the lease owner, keeps every attempt newest first, and replays", async () => {
      const { hook, ids } = await withDeliveries(storage(), 2);
      const [a, b] = await storage().webhookDeliveries.claimDueDeliveries(T0 + 5, 10, LEASE, "w");
      const applied = await storage().webhookDeliveries.recordDeliveryOutcomes([
        {
          id: a!.id,
          webhookId: hook.id,
          leaseOwner: "w",
          attempt: attemptOf(a!, 503, T0 + 6),
          next: { status: "attempting", nextAttemptAt: T0 + 5006 },
        },
        {
          id: b!.id,
          webhookId: hook.id,
          leaseOwner: "intruder",
          attempt: attemptOf(b!, 200),
          next: { status: "success" },
        },
      ]);
      expect(applied).toEqual([true, false]);
      expect((await storage().webhookDeliveries.getDelivery(hook.id, ids[0]!))!.delivery).toMatchObject({
        status: "attempting",
        attempts: 1,
        nextAttemptAt: T0 + 5006,
        lastAttemptAt: T0 + 6,
      });
      expect((await storage().webhookDeliveries.getDelivery(hook.id, ids[0]!))!.delivery).not.toHaveProperty(
        "leaseOwner",
      );
      expect(
        await storage()
          .webhookDeliveries.claimDueDeliveries(T0 + 5005, 10, LEASE, "w")
          .then((c) => c.map((d) => d.eventId)),
      ).toEqual([]);
      const [retry] = await storage().webhookDeliveries.claimDueDeliveries(T0 + 5006, 1, LEASE, "w");
      expect(retry).toMatchObject({ eventId: ids[0], attempts: 2, status: "attempting" });
      const ok = attemptOf(retry!, 204, T0 + 5007);
      await storage().webhookDeliveries.recordDeliveryOutcomes([
        { id: retry!.id, webhookId: hook.id, leaseOwner: "w", attempt: ok, next: { status: "success" } },
      ]);
      const attempts = await storage().webhookDeliveries.listAttempts(hook.id, ids[0]!, { limit: 10 });
      expect(attempts.map((x) => x.statusCode)).toEqual([204, 503]);
      expect(attempts[0]).toEqual(ok);
      expect(
        (await storage().webhookDeliveries.listAttempts(hook.id, ids[0]!, { limit: 1, after: attempts[0]!.id })).map(
          (x) => x.statusCode,
        ),
      ).toEqual([503]);
      expect(await storage().webhookDeliveries.listAttempts(hook.id, ids[1]!, { limit: 10 })).toEqual([]);

      const replayed = await storage().webhookDeliveries.replayDelivery(hook.id, ids[0]!, T0 + 9000);
      expect(replayed).toMatchObject({
        eventId: ids[0],
        status: "pending",
        attempts: 0,
        nextAttemptAt: T0 + 9000,
      });
      expect(
        (await storage().webhookDeliveries.claimDueDeliveries(T0 + 9000, 10, LEASE, "w")).map((d) => d.eventId),
      ).toContain(ids[0]);
      expect(await storage().webhookDeliveries.replayDelivery(hook.id, "missing", T0)).toBeUndefined();
    });

    it("lists an endpoint's deliveries newest event first, paged by event id", async () => {
      const { hook, ids } = await withDeliveries(storage(), 3);
      const all = await storage().webhookDeliveries.listDeliveries(hook.id, { limit: 10 });
      expect(all.map((d) => d.eventId)).toEqual([...ids].reverse());
      expect(
        (await storage().webhookDeliveries.listDeliveries(hook.id, { limit: 1, after: ids[2] })).map((d) => d.eventId),
      ).toEqual([ids[1]]);
      expect(
        (await storage().webhookDeliveries.listDeliveries(hook.id, { limit: 1, before: ids[0] })).map((d) => d.eventId),
      ).toEqual([ids[1]]);
    });

    it("tracks an endpoint's failing run: a success clears it, failing past the cutoff disables it", async () => {
      const { hook } = await withDeliveries(storage(), 3);
      const claimed = await storage().webhookDeliveries.claimDueDeliveries(T0 + 5, 10, LEASE, "w");
      const fail = (i: number, at: number, cutoff: number): DeliveryOutcome => ({
        id: claimed[i]!.id,
        webhookId: hook.id,
        leaseOwner: "w",
        attempt: attemptOf(claimed[i]!, 0, at),
        next: { status: "attempting", nextAttemptAt: at + 1000 },
        endpoint: { failedAt: at, disableIfFailingSince: cutoff },
      });
      await storage().webhookDeliveries.recordDeliveryOutcomes([fail(0, T0 + 10, T0 - 100)]);
      expect(await storage().webhooks.getWebhook(hook.id)).toMatchObject({
        status: "enabled",
        failingSince: T0 + 10,
      });
      await storage().webhookDeliveries.recordDeliveryOutcomes([fail(1, T0 + 20, T0 + 10)]);
      expect(await storage().webhooks.getWebhook(hook.id)).toMatchObject({
        status: "disabled",
        failingSince: T0 + 10,
      });
      await storage().webhookDeliveries.recordDeliveryOutcomes([
        {
          id: claimed[2]!.id,
          webhookId: hook.id,
          leaseOwner: "w",
          attempt: attemptOf(claimed[2]!, 200),
          next: { status: "success" },
          endpoint: { succeeded: true },
        },
      ]);
      expect(await storage().webhooks.getWebhook(hook.id)).not.toHaveProperty("failingSince");
    });
  });

  describeCapability(harness, "shared", "webhook deliveries shared by several processes", "openShared", () => {
    it("gives each due delivery to exactly one of several processes claiming at once", async () => {
      const shared = await harness.openShared!(3);
      try {
        const [a] = shared.storages as [Storage];
        await a.migrate();
        const { ids } = await withDeliveries(a, 30);
        const rounds = await Promise.all(
          shared.storages.flatMap((s, i) => [
            s.webhookDeliveries.claimDueDeliveries(T0 + 100, 7, LEASE, `p${i}a`),
            s.webhookDeliveries.claimDueDeliveries(T0 + 100, 7, LEASE, `p${i}b`),
          ]),
        );
        // A claim may come back short when rows it saw were taken meanwhile: the rest stay due.
        const rest = await a.webhookDeliveries.claimDueDeliveries(T0 + 100, 100, LEASE, "last");
        const claimed = [...rounds.flat(), ...rest].map((d) => d.eventId);
        expect(new Set(claimed).size).toBe(claimed.length);
        expect(claimed.sort()).toEqual([...ids].sort());
      } finally {
        await shared.dispose();
      }
    });
  });
}
