import { describe, expect, it } from "vitest";
import type { FlagInsightCount } from "../../../src/ports/storage/flag-insights.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import { describeCapability, type StorageHarness } from "../harness.js";
import { useSharedStorages, useStorage } from "./use-storage.js";

const H = (hour: number) => Date.UTC(2026, 2, 4, hour);
const AT = (hour: number, minute: number) => Date.UTC(2026, 2, 4, hour, minute);

function count(fields: Partial<FlagInsightCount> & Pick<FlagInsightCount, "flagKey" | "count">): FlagInsightCount {
  return { hour: H(5), enabled: true, variant: null, lastAt: AT(5, 10), ...fields };
}

const byResult = (a: FlagInsightCount | { enabled: boolean; variant: string | null }, b: typeof a) =>
  `${a.enabled}:${a.variant}`.localeCompare(`${b.enabled}:${b.variant}`);

/** The FlagInsightRepository contract (src/ports/storage/flag-insights.ts). */
export function flagInsightCases(harness: StorageHarness): void {
  describe("flag insights", () => {
    const storage = useStorage(harness);

    it("adds counts per flag, hour and result, and reads them back by hour", async () => {
      await storage().flagInsights.add([
        count({ flagKey: "f", count: 3 }),
        count({ flagKey: "f", count: 2, enabled: false }),
        count({ flagKey: "f", count: 4, variant: "blue" }),
        count({ flagKey: "f", count: 1, hour: H(6), lastAt: AT(6, 1) }),
        count({ flagKey: "other", count: 9 }),
      ]);
      const rows = await storage().flagInsights.hourly("f", H(0), H(23));
      expect(rows.map((r) => r.hour)).toEqual([H(5), H(5), H(5), H(6)]);
      expect(rows.slice(0, 3).sort(byResult)).toEqual(
        [
          count({ flagKey: "f", count: 2, enabled: false }),
          count({ flagKey: "f", count: 3 }),
          count({ flagKey: "f", count: 4, variant: "blue" }),
        ].sort(byResult),
      );
      expect(rows[3]).toEqual(count({ flagKey: "f", count: 1, hour: H(6), lastAt: AT(6, 1) }));
      expect(await storage().flagInsights.hourly("f", H(6), H(7))).toHaveLength(1);
      expect(await storage().flagInsights.hourly("f", H(0), H(5))).toEqual([]);
      expect(await storage().flagInsights.hourly("nobody", H(0), H(23))).toEqual([]);
    });

    it("sums a second add into the same row and keeps the later lastAt", async () => {
      await storage().flagInsights.add([count({ flagKey: "f", count: 5, lastAt: AT(5, 30) })]);
      await storage().flagInsights.add([count({ flagKey: "f", count: 7, lastAt: AT(5, 20) })]);
      await storage().flagInsights.add([
        count({ flagKey: "f", count: 1, lastAt: AT(5, 40) }),
        count({ flagKey: "f", count: 1, lastAt: AT(5, 35) }),
      ]);
      expect(await storage().flagInsights.hourly("f", H(5), H(6))).toEqual([
        count({ flagKey: "f", count: 14, lastAt: AT(5, 40) }),
      ]);
    });

    it("sums concurrent adds without losing one", async () => {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          storage().flagInsights.add([
            count({ flagKey: "busy", count: 1, lastAt: AT(5, i) }),
            count({ flagKey: "busy", count: 10, enabled: false, lastAt: AT(5, i) }),
          ]),
        ),
      );
      const rows = (await storage().flagInsights.hourly("busy", H(5), H(6))).sort(byResult);
      expect(rows.map((r) => [r.enabled, r.count, r.lastAt])).toEqual([
        [false, 80, AT(5, 7)],
        [true, 8, AT(5, 7)],
      ]);
    });

    it("totals per flag and result over the hours from `since`, with the newest lastAt", async () => {
      await storage().flagInsights.add([
        count({ flagKey: "a", count: 1, hour: H(3), lastAt: AT(3, 5) }),
        count({ flagKey: "a", count: 2, hour: H(5), lastAt: AT(5, 5) }),
        count({ flagKey: "a", count: 4, hour: H(6), lastAt: AT(6, 5) }),
        count({ flagKey: "a", count: 8, hour: H(6), variant: "v" }),
        count({ flagKey: "b", count: 16, enabled: false, hour: H(7), lastAt: AT(7, 0) }),
        count({ flagKey: "c", count: 32, hour: H(7) }),
      ]);
      const totals = await storage().flagInsights.totals(["a", "b", "missing"], H(5));
      expect(totals.sort((x, y) => x.flagKey.localeCompare(y.flagKey) || byResult(x, y))).toEqual([
        { flagKey: "a", enabled: true, variant: null, count: 6, lastAt: AT(6, 5) },
        { flagKey: "a", enabled: true, variant: "v", count: 8, lastAt: AT(5, 10) },
        { flagKey: "b", enabled: false, variant: null, count: 16, lastAt: AT(7, 0) },
      ]);
      expect(await storage().flagInsights.totals([], H(0))).toEqual([]);
    });

    it("keeps a variant named like a boolean apart from the boolean results", async () => {
      await storage().flagInsights.add([
        count({ flagKey: "f", count: 1, variant: "true" }),
        count({ flagKey: "f", count: 2 }),
        count({ flagKey: "f", count: 3, enabled: false }),
        count({ flagKey: "f", count: 4, variant: "false" }),
      ]);
      const rows = (await storage().flagInsights.hourly("f", H(5), H(6))).sort(byResult);
      expect(rows.map((r) => [r.enabled, r.variant, r.count])).toEqual([
        [false, null, 3],
        [true, "false", 4],
        [true, null, 2],
        [true, "true", 1],
      ]);
    });

    it("stores counts past 2^31 and keys of 128 characters", async () => {
      const key = `k${"x".repeat(127)}`;
      const variant = `v${"y".repeat(127)}`;
      await storage().flagInsights.add([count({ flagKey: key, count: 2 ** 40, variant })]);
      await storage().flagInsights.add([count({ flagKey: key, count: 1, variant })]);
      expect((await storage().flagInsights.hourly(key, H(5), H(6)))[0]).toMatchObject({ count: 2 ** 40 + 1, variant });
    });
  });

  describeCapability(harness, "shared", "flag insights: several processes", "openShared", () => {
    const openShared = useSharedStorages(harness);

    it("sums the counts two processes add to the same rows at once", async () => {
      const storages = await openShared(2);
      const [a, b] = storages as [Storage, Storage];
      await Promise.all([a.migrate(), b.migrate()]);
      const rounds = 10;
      await Promise.all(
        [a, b].map(async (writer, w) => {
          for (let i = 0; i < rounds; i++) {
            const batch = [
              count({ flagKey: "f", count: 1, lastAt: AT(5, w * 20 + i) }),
              count({ flagKey: "f", count: 2, variant: "x", lastAt: AT(5, w * 20 + i) }),
              count({ flagKey: "g", count: 3, enabled: false }),
            ];
            // A refused add stores nothing and is tried again, as the flag client's flush does (on
            // SQLite, two connections in one thread cannot wait for each other's lock).
            for (let attempt = 1; ; attempt++) {
              const failed = await writer.flagInsights.add(batch).then(
                () => false,
                () => true,
              );
              if (!failed) break;
              if (attempt >= 50) throw new Error(`writer ${w} could not add its counts in 50 attempts`);
              await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
            }
          }
        }),
      );
      const totals = await a.flagInsights.totals(["f", "g"], H(0));
      expect(totals.sort((x, y) => x.flagKey.localeCompare(y.flagKey) || byResult(x, y))).toEqual([
        { flagKey: "f", enabled: true, variant: null, count: 20, lastAt: AT(5, 29) },
        { flagKey: "f", enabled: true, variant: "x", count: 40, lastAt: AT(5, 29) },
        { flagKey: "g", enabled: false, variant: null, count: 60, lastAt: AT(5, 10) },
      ]);
    });
  });
}
