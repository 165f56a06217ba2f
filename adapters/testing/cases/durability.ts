import { expect, it } from "vitest";
import type { IdempotencyClaim } from "../../../src/ports/storage/idempotency.js";
import { flagWrites } from "../../../src/flags/store/index.js";
import { describeCapability, type StorageHarness } from "../harness.js";
import { flagRecord } from "./flag-fixtures.js";
import { useReopenedStorage } from "./use-storage.js";

export function durabilityCases(harness: StorageHarness): void {
  describeCapability(harness, "durable", "durability", "reopen", () => {
    const durable = useReopenedStorage(harness);

    it("keeps flags, keys and idempotency records across close and reopen", async () => {
      let current = await durable.create();
      const now = Date.parse("2026-01-01T00:00:00.000Z");
      await flagWrites(current).insert(
        flagRecord("durable", "00000000-0000-7000-8000-0000000000aa", {
          enabled: true,
          rules: [{ type: "percentage", percentage: 50 }],
          createdAt: now,
          updatedAt: now,
        }),
      );
      await current.apiKeys.insert({
        id: "k",
        name: "",
        hash: "c".repeat(64),
        scopes: ["full_access"],
        createdAt: now,
      });
      const claim: IdempotencyClaim = {
        scope: "s",
        key: "k",
        fingerprint: "f",
        now,
        lockedUntil: now,
        expiresAt: Date.parse("2027-01-01T00:00:00.000Z"),
      };
      await current.idempotency.begin(claim);
      await current.idempotency.complete({ scope: "s", key: "k", response: { ok: true } });

      current = await durable.reopen(current);
      expect((await current.flags.get("durable"))?.rules).toEqual([{ type: "percentage", percentage: 50 }]);
      expect((await current.apiKeys.findByHash("c".repeat(64)))?.scopes).toEqual(["full_access"]);
      expect(await current.idempotency.begin(claim)).toEqual({ state: "replay", response: { ok: true } });
    });
  });
}
