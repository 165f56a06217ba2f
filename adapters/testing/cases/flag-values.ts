import { describe, expect, it } from "vitest";
import { flagWrites } from "../../../src/flags/store/index.js";
import { createFlagpost } from "../../../src/flagpost.js";
import type { FlagRecord } from "../../../src/ports/storage/flags.js";
import { silentLogger } from "../../../src/ports/logger.js";
import type { StorageHarness } from "../harness.js";
import { flagIds, flagRecord } from "./flag-fixtures.js";
import { useStorage } from "./use-storage.js";

// Flag values (issue 27): whatever JSON a variant serves comes back from storage exactly, through
// the storage port and through a Flagpost instance (FlagStore, history, evaluation) on top of it.

const nextId = flagIds("1");
const flag = (key: string, overrides: Partial<FlagRecord> = {}) =>
  flagRecord(key, nextId(), { enabled: true, ...overrides });

/** Values of every type, with the text and numbers storage engines are known to bend. */
const VALUE_SETS: Record<string, [unknown, unknown]> = {
  string: ['Ünïcode — ✓ 三 😀 "quoted" \\ back\nslash', ""],
  number: [0.1 + 0.2, -1.7976931348623157e308],
  boolean: [false, true],
  object: [
    { z: 1, a: { nested: [1, "two", { three: null }] }, ключ: "значение", empty: {} },
    { maxUploadMb: 25, tiers: ["free", "pro"] },
  ],
  array: [[], [{ id: 1 }, [2, [3]], "x", 9007199254740991]],
};

export function flagValueCases(harness: StorageHarness): void {
  describe("flag values", () => {
    const storage = useStorage(harness);

    it("stores variant values of every JSON type and rule-served variants, and reads them back exactly", async () => {
      for (const [type, [a, b]] of Object.entries(VALUE_SETS)) {
        const variants = [
          { key: "a", weight: 50, value: a },
          { key: "b", weight: 50, value: b },
        ];
        const rules: FlagRecord["rules"] = [{ type: "users", userIds: ["vip"], variant: "b" }];
        const f = flag(`values-${type}`, { variants, rules });
        await flagWrites(storage()).insert(f);
        expect(await storage().flags.get(f.key), type).toEqual(f);
        expect(
          (await storage().flags.list({ limit: 100 })).find((x) => x.key === f.key),
          type,
        ).toEqual(f);
        const swapped = [
          { key: "a", weight: 50, value: b },
          { key: "b", weight: 50, value: a },
        ];
        const updated = await flagWrites(storage()).update(f.key, {
          variants: swapped,
          updatedAt: Date.parse("2026-02-02T00:00:00.000Z"),
        });
        expect(updated?.variants, type).toEqual(swapped);
        expect((await storage().flags.get(f.key))?.variants, type).toEqual(swapped);
      }
    });

    it("keeps a value of the full 32 KiB", async () => {
      const big = "é".repeat(16 * 1024 - 8); // two bytes each in UTF-8
      const variants = [
        { key: "a", weight: 50, value: { text: big } },
        { key: "b", weight: 50, value: { text: "" } },
      ];
      await flagWrites(storage()).insert(flag("values-big", { variants }));
      expect((await storage().flags.get("values-big"))?.variants).toEqual(variants);
    });

    it("serves stored values through a Flagpost instance and records value changes in the history", async () => {
      const fp = createFlagpost({ storage: storage(), logger: silentLogger });
      try {
        await fp.ready();
        await fp.flags.create({
          key: "banner",
          enabled: true,
          rules: [{ type: "attribute", attribute: "plan", operator: "equals", value: "pro", variant: "pro" }],
          variants: [
            { key: "plain", weight: 100, value: { text: "Welcome", color: "grey" } },
            { key: "pro", weight: 0, value: { text: "Welcome back", color: "gold" } },
          ],
        });
        await fp.flags.update("banner", {
          variants: [
            { key: "plain", weight: 100, value: { text: "Welcome", color: "blue" } },
            { key: "pro", weight: 0, value: { text: "Welcome back", color: "gold" } },
          ],
        });
        const stored = await fp.flags.evaluate("banner", { attributes: { plan: "pro" } });
        expect(stored).toEqual({
          enabled: true,
          reason: "rule_match",
          ruleIndex: 0,
          variant: "pro",
          value: { text: "Welcome back", color: "gold" },
        });
        const [latest] = (await storage().flagHistory.list("banner", { limit: 10 })).map((entry) => entry.changes);
        expect(latest).toEqual([{ path: "variants.0.value.color", before: "grey", after: "blue" }]);
      } finally {
        await fp.close();
      }
    });
  });
}
