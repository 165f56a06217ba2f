import { describe, expect, it } from "vitest";
import type { FlagpostError } from "../../../src/errors.js";
import { flagWrites } from "../../../src/flags/store/index.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";
import {
  attemptOf,
  domainEvent,
  flag,
  LEASE,
  subscribedWebhook,
  T0,
  webhook,
  withDeliveries,
} from "./webhook-fixtures.js";

export function webhookEndpointCases(harness: StorageHarness): void {
  describe("webhook endpoints", () => {
    const storage = useStorage(harness);

    it("stores, reads, lists newest first with after/before cursors, updates, rotates and deletes", async () => {
      const hooks = [
        webhook(),
        webhook({ events: ["email.sent", "email.bounced"], failingSince: T0 }),
        webhook({ status: "disabled" }),
      ];
      for (const h of hooks) await storage().webhooks.insertWebhook(h);
      expect(await storage().webhooks.getWebhook(hooks[1]!.id)).toEqual(hooks[1]);
      expect(await storage().webhooks.getWebhook("missing")).toBeUndefined();
      const ids = hooks.map((h) => h.id).reverse();
      expect((await storage().webhooks.listWebhooks({ limit: 10 })).map((h) => h.id)).toEqual(ids);
      expect((await storage().webhooks.listWebhooks({ limit: 1, after: ids[0] })).map((h) => h.id)).toEqual([ids[1]]);
      expect((await storage().webhooks.listWebhooks({ limit: 1, before: ids[2] })).map((h) => h.id)).toEqual([ids[1]]);
      expect((await storage().webhooks.listWebhooks({ limit: 5, before: ids[2] })).map((h) => h.id)).toEqual([
        ids[0],
        ids[1],
      ]);

      const updated = await storage().webhooks.updateWebhook(hooks[1]!.id, {
        endpoint: "http://other.example.com/x",
        status: "enabled",
        updatedAt: T0 + 1,
      });
      expect(updated).toEqual({
        ...hooks[1],
        endpoint: "http://other.example.com/x",
        updatedAt: T0 + 1,
        failingSince: undefined,
      });
      expect(updated).not.toHaveProperty("failingSince");
      expect(await storage().webhooks.updateWebhook("missing", { status: "enabled", updatedAt: T0 })).toBeUndefined();

      const rotated = await storage().webhooks.rotateSecret(hooks[0]!.id, {
        secret: "whsec_bmV3",
        previousSecretExpiresAt: T0 + 86_400_000,
        updatedAt: T0 + 2,
      });
      expect(rotated).toEqual({
        ...hooks[0],
        secret: "whsec_bmV3",
        previousSecret: hooks[0]!.secret,
        previousSecretExpiresAt: T0 + 86_400_000,
        updatedAt: T0 + 2,
      });
      expect(await storage().webhooks.getWebhook(hooks[0]!.id)).toEqual(rotated);
      expect(
        await storage().webhooks.rotateSecret("missing", {
          secret: "x",
          previousSecretExpiresAt: T0,
          updatedAt: T0,
        }),
      ).toBeUndefined();

      expect(await storage().webhooks.deleteWebhook(hooks[0]!.id)).toBe(true);
      expect(await storage().webhooks.deleteWebhook(hooks[0]!.id)).toBe(false);
      expect(await storage().webhooks.getWebhook(hooks[0]!.id)).toBeUndefined();
    });

    it("refuses a second endpoint with the same id", async () => {
      const h = webhook();
      await storage().webhooks.insertWebhook(h);
      const error = await storage()
        .webhooks.insertWebhook(h)
        .catch((e: unknown) => e);
      expect((error as FlagpostError).code).toBe("conflict");
    });

    it("deleting an endpoint removes its deliveries and attempts, not the others'", async () => {
      const { hook, ids } = await withDeliveries(storage(), 2);
      const other = await subscribedWebhook(storage(), ["flag.created"]);
      await flagWrites(storage()).insert(flag("later"), undefined, [domainEvent("flag.created")]);
      const [claimed] = await storage().webhookDeliveries.claimDueDeliveries(T0 + 10, 1, LEASE, "w");
      await storage().webhookDeliveries.recordDeliveryOutcomes([
        {
          id: claimed!.id,
          webhookId: hook.id,
          leaseOwner: "w",
          attempt: attemptOf(claimed!, 500),
          next: { status: "failed" },
        },
      ]);
      expect(await storage().webhooks.deleteWebhook(hook.id)).toBe(true);
      expect(await storage().webhookDeliveries.listDeliveries(hook.id, { limit: 10 })).toEqual([]);
      expect(await storage().webhookDeliveries.getDelivery(hook.id, ids[0]!)).toBeUndefined();
      expect(await storage().webhookDeliveries.listDeliveries(other.id, { limit: 10 })).toHaveLength(1);
    });
  });
}
