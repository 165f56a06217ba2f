import { afterEach, expect, it } from "vitest";
import type { Storage } from "../../../src/internal.js";
import { flagWrites } from "../../../src/internal.js";
import { describeCapability, type StorageHarness } from "../harness.js";

export function durabilityCases(harness: StorageHarness): void {
  describeCapability(harness, "durable", "durability", "reopen", () => {
    let current: Storage | undefined;
    afterEach(async () => {
      if (current) await harness.destroy(current);
      current = undefined;
    });

    it("keeps flags, keys and idempotency records across close and reopen", async () => {
      current = await harness.create();
      await flagWrites(current).insert({
        id: "00000000-0000-7000-8000-0000000000aa",
        key: "durable",
        description: "",
        enabled: true,
        rules: [{ type: "percentage", percentage: 50 }],
        variants: [],
        prerequisites: [],
        createdAt: "2026-01-01T00:00:00.000Z",
        updatedAt: "2026-01-01T00:00:00.000Z",
      });
      await current.apiKeys.insert({
        id: "k",
        name: "",
        hash: "c".repeat(64),
        scopes: ["full_access"],
        createdAt: "2026-01-01T00:00:00.000Z",
      });
      const now = "2026-01-01T00:00:00.000Z";
      await current.idempotency.begin({
        scope: "s",
        key: "k",
        fingerprint: "f",
        now,
        lockedUntil: now,
        expiresAt: "2027-01-01T00:00:00.000Z",
      });
      await current.idempotency.complete({ scope: "s", key: "k", response: { ok: true } });

      current = await harness.reopen!(current);
      expect((await current.flags.get("durable"))?.rules).toEqual([{ type: "percentage", percentage: 50 }]);
      expect((await current.apiKeys.findByHash("c".repeat(64)))?.scopes).toEqual(["full_access"]);
      expect(
        await current.idempotency.begin({
          scope: "s",
          key: "k",
          fingerprint: "f",
          now,
          lockedUntil: now,
          expiresAt: "2027-01-01T00:00:00.000Z",
        }),
      ).toEqual({ state: "replay", response: { ok: true } });
    });
  });
}
