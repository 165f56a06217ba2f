import { expect, it } from "vitest";
import type { FlagRecord } from "../../../src/ports/storage/flags.js";
import type { IdempotencyClaim } from "../../../src/ports/storage/idempotency.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import { flagWrites } from "../../../src/flags/store/index.js";
import { describeCapability, type StorageHarness } from "../harness.js";
import { flagRecord } from "./flag-fixtures.js";
import { useSharedStorages } from "./use-storage.js";

const AT = Date.parse("2026-03-04T05:06:07.089Z");

function flag(key: string): FlagRecord {
  return flagRecord(key, `00000000-0000-7000-8000-0000000${key.length}0000`, {
    createdAt: AT,
    updatedAt: AT,
  });
}

/** Several storages on one database, as several processes of one app would open it. */
export function sharedCases(harness: StorageHarness): void {
  describeCapability(harness, "shared", "shared by several processes", "openShared", () => {
    const open = useSharedStorages(harness);

    it("migrates one empty database from several processes at once, and again", async () => {
      const storages = await open(3);
      await Promise.all(storages.map((s) => s.migrate()));
      await Promise.all(storages.map((s) => s.migrate()));
      const [a, b, c] = storages as [Storage, Storage, Storage];
      await flagWrites(a).insert(flag("shared"));
      expect(await b.flags.get("shared")).toEqual(flag("shared"));
      expect((await c.flags.list({ limit: 10 })).map((f) => f.key)).toEqual(["shared"]);
    });

    it("shows one process's flag writes to another, revision included", async () => {
      const [a, b] = (await open(2)) as [Storage, Storage];
      await a.migrate();
      await b.migrate();
      const r0 = await b.flags.revision();
      await flagWrites(a).insert(flag("seen"));
      const r1 = await b.flags.revision();
      expect(r1).toBeGreaterThan(r0);
      await flagWrites(a).update("seen", { enabled: true, updatedAt: Date.parse("2026-03-04T05:06:08.000Z") });
      expect(await b.flags.revision()).toBeGreaterThan(r1);
      expect(await b.flags.get("seen")).toMatchObject({
        enabled: true,
        updatedAt: Date.parse("2026-03-04T05:06:08.000Z"),
      });
    });

    it("gives exactly one of several processes an idempotency key", async () => {
      const storages = await open(3);
      for (const s of storages) await s.migrate();
      const claim: IdempotencyClaim = {
        scope: "s",
        key: "k",
        fingerprint: "f",
        now: AT,
        lockedUntil: Date.parse("2026-03-04T05:07:07.089Z"),
        expiresAt: Date.parse("2026-03-05T05:06:07.089Z"),
      };
      const results = await Promise.all(
        storages.flatMap((s) => [s.idempotency.begin(claim), s.idempotency.begin(claim)]),
      );
      expect(results.filter((r) => r.state === "started")).toHaveLength(1);
      expect(results.filter((r) => r.state === "in_progress")).toHaveLength(5);
    });
  });
}
