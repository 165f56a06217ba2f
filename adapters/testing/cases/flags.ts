import { describe, expect, it } from "vitest";
import { flagWrites } from "../../../src/flags/store/index.js";
import type { FlagRecord } from "../../../src/ports/storage/flags.js";
import { FlagpostError } from "../../../src/errors.js";
import type { StorageHarness } from "../harness.js";
import { flagIds, flagRecord } from "./flag-fixtures.js";
import { useStorage } from "./use-storage.js";

const nextId = flagIds();
const flag = (key: string, overrides: Partial<FlagRecord> = {}) =>
  flagRecord(key, nextId(), { description: `flag ${key}`, ...overrides });

export function flagCases(harness: StorageHarness): void {
  describe("flags", () => {
    const storage = useStorage(harness);

    it("stores variants, replaces them on update, and leaves them alone when an update omits them", async () => {
      const variants = [
        { key: "control", weight: 33.33 },
        { key: "treatment-ü", weight: 33.33 },
        { key: "big.one", weight: 33.34 },
      ];
      await flagWrites(storage()).insert(flag("split", { variants }));
      expect((await storage().flags.get("split"))?.variants).toEqual(variants);
      await flagWrites(storage()).update("split", { enabled: true, updatedAt: Date.parse("2026-02-02T00:00:00.000Z") });
      expect((await storage().flags.get("split"))?.variants).toEqual(variants);
      const two = [
        { key: "a", weight: 0 },
        { key: "b", weight: 100 },
      ];
      expect(
        (
          await flagWrites(storage()).update("split", {
            variants: two,
            updatedAt: Date.parse("2026-02-02T00:00:00.001Z"),
          })
        )?.variants,
      ).toEqual(two);
      const none = await flagWrites(storage()).update("split", {
        variants: [],
        updatedAt: Date.parse("2026-02-02T00:00:00.002Z"),
      });
      expect(none?.variants).toEqual([]);
      expect((await storage().flags.list({ limit: 10 })).find((f) => f.key === "split")?.variants).toEqual([]);
    });

    it("stores a flag and reads it back field for field, rules included", async () => {
      const rules: FlagRecord["rules"] = [
        { type: "users", userIds: ["u1", "ü-2", "三"] },
        { type: "attribute", attribute: "plan", operator: "in", value: ["pro", 1, true] },
        { type: "attribute", attribute: "signup", operator: "gte", value: "2026-01-01T00:00:00Z" },
        { type: "percentage", percentage: 12.34 },
      ];
      const f = flag("checkout.v2", { enabled: true, rules, description: "Ünïcode — ✓" });
      await flagWrites(storage()).insert(f);
      expect(await storage().flags.get("checkout.v2")).toEqual(f);
    });

    it("returns undefined for an unknown key", async () => {
      expect(await storage().flags.get("missing")).toBeUndefined();
    });

    it("refuses a second flag with the same key with a conflict error", async () => {
      await flagWrites(storage()).insert(flag("dup"));
      const error = await flagWrites(storage())
        .insert(flag("dup"))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlagpostError);
      expect((error as FlagpostError).code).toBe("conflict");
    });

    it("lets exactly one of several concurrent inserts of one key succeed", async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, () => flagWrites(storage()).insert(flag("race"))),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results) {
        if (r.status === "rejected") expect((r.reason as FlagpostError).code).toBe("conflict");
      }
    });

    it("treats keys as case-sensitive", async () => {
      await flagWrites(storage()).insert(flag("Beta"));
      await flagWrites(storage()).insert(flag("beta"));
      expect((await storage().flags.get("Beta"))?.key).toBe("Beta");
      expect((await storage().flags.get("beta"))?.key).toBe("beta");
    });

    it("lists by key in code-point order, not a locale collation, with keyset paging", async () => {
      const keys = ["b", "B", "a-1", "a.1", "a_1", "A", "0", "z", "Z9", "a"];
      for (const k of keys) await flagWrites(storage()).insert(flag(k));
      const expected = [...keys].sort(); // JS sort is code-unit order; keys are ASCII
      const all = await storage().flags.list({ limit: 100 });
      expect(all.map((f) => f.key)).toEqual(expected);

      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await storage().flags.list({ after, limit: 3 });
        seen.push(...page.map((f) => f.key));
        if (page.length < 3) break;
        after = page.at(-1)!.key;
      }
      expect(seen).toEqual(expected);
    });

    it("updates only the fields given and returns the stored flag", async () => {
      await flagWrites(storage()).insert(
        flag("patch", { description: "keep me", rules: [{ type: "percentage", percentage: 5 }] }),
      );
      const updated = await flagWrites(storage()).update("patch", {
        enabled: true,
        updatedAt: Date.parse("2026-02-02T00:00:00.000Z"),
      });
      expect(updated).toMatchObject({
        key: "patch",
        enabled: true,
        description: "keep me",
        rules: [{ type: "percentage", percentage: 5 }],
        updatedAt: Date.parse("2026-02-02T00:00:00.000Z"),
      });
      expect(await storage().flags.get("patch")).toEqual(updated);
    });

    it("keeps both of two concurrent updates of different fields", async () => {
      await flagWrites(storage()).insert(flag("both"));
      await Promise.all([
        flagWrites(storage()).update("both", { enabled: true, updatedAt: Date.parse("2026-02-02T00:00:00.000Z") }),
        flagWrites(storage()).update("both", { description: "new", updatedAt: Date.parse("2026-02-02T00:00:00.001Z") }),
      ]);
      expect(await storage().flags.get("both")).toMatchObject({ enabled: true, description: "new" });
    });

    it("returns undefined when updating an unknown key, and creates nothing", async () => {
      expect(
        await flagWrites(storage()).update("ghost", {
          enabled: true,
          updatedAt: Date.parse("2026-02-02T00:00:00.000Z"),
        }),
      ).toBeUndefined();
      expect(await storage().flags.get("ghost")).toBeUndefined();
    });

    it("replaces the rule list as a whole, down to an empty list, and keeps an empty description", async () => {
      await flagWrites(storage()).insert(
        flag("rules", {
          rules: [
            { type: "percentage", percentage: 5 },
            { type: "users", userIds: ["a"] },
          ],
        }),
      );
      const one = await flagWrites(storage()).update("rules", {
        rules: [{ type: "users", userIds: ["b"] }],
        updatedAt: Date.parse("2026-02-02T00:00:00.000Z"),
      });
      expect(one?.rules).toEqual([{ type: "users", userIds: ["b"] }]);
      const none = await flagWrites(storage()).update("rules", {
        rules: [],
        description: "",
        updatedAt: Date.parse("2026-02-02T00:00:00.001Z"),
      });
      expect(none).toMatchObject({ rules: [], description: "" });
      expect(await storage().flags.get("rules")).toEqual(none);
    });

    it("leaves the stored flag and the revision alone when an insert is refused", async () => {
      await flagWrites(storage()).insert(flag("first", { description: "original" }));
      const revision = await storage().flags.revision();
      await expect(flagWrites(storage()).insert(flag("first", { description: "intruder" }))).rejects.toBeInstanceOf(
        FlagpostError,
      );
      expect((await storage().flags.get("first"))?.description).toBe("original");
      expect(await storage().flags.revision()).toBe(revision);
    });

    it("lets a deleted key be used again", async () => {
      await flagWrites(storage()).insert(flag("again"));
      await flagWrites(storage()).delete("again");
      const second = flag("again", { enabled: true });
      await flagWrites(storage()).insert(second);
      expect(await storage().flags.get("again")).toEqual(second);
    });

    it("returns times unchanged to the millisecond, before 1970 and far ahead included", async () => {
      const times = ["1969-12-31T23:59:59.999Z", "2026-06-30T12:34:56.789Z", "2999-12-31T23:59:59.001Z"].map(
        Date.parse,
      );
      for (const [i, t] of times.entries())
        await flagWrites(storage()).insert(flag(`t${i}`, { createdAt: t, updatedAt: times[(i + 1) % times.length]! }));
      for (const [i, t] of times.entries()) {
        expect(await storage().flags.get(`t${i}`)).toMatchObject({
          createdAt: t,
          updatedAt: times[(i + 1) % times.length],
        });
      }
    });

    it("lists nothing after the last key and never more than the limit", async () => {
      for (const k of ["a", "b", "c"]) await flagWrites(storage()).insert(flag(k));
      expect(await storage().flags.list({ after: "c", limit: 10 })).toEqual([]);
      expect((await storage().flags.list({ limit: 2 })).map((f) => f.key)).toEqual(["a", "b"]);
      expect((await storage().flags.list({ after: "a", limit: 1 })).map((f) => f.key)).toEqual(["b"]);
    });

    it("deletes a flag once", async () => {
      await flagWrites(storage()).insert(flag("gone"));
      expect(await flagWrites(storage()).delete("gone")).toBe(true);
      expect(await storage().flags.get("gone")).toBeUndefined();
      expect(await flagWrites(storage()).delete("gone")).toBe(false);
    });

    it("grows the revision on every insert, update and delete, and not on reads", async () => {
      const r0 = await storage().flags.revision();
      await flagWrites(storage()).insert(flag("rev"));
      const r1 = await storage().flags.revision();
      expect(r1).toBeGreaterThan(r0);
      await storage().flags.get("rev");
      await storage().flags.list({ limit: 10 });
      expect(await storage().flags.revision()).toBe(r1);
      await flagWrites(storage()).update("rev", { enabled: true, updatedAt: Date.parse("2026-02-02T00:00:00.000Z") });
      const r2 = await storage().flags.revision();
      expect(r2).toBeGreaterThan(r1);
      await flagWrites(storage()).delete("rev");
      expect(await storage().flags.revision()).toBeGreaterThan(r2);
    });

    it("stores a users rule of 10,000 ids of 200 characters each", async () => {
      const userIds = Array.from({ length: 10_000 }, (_, i) => `user-${i}-`.padEnd(200, "x"));
      await flagWrites(storage()).insert(flag("big", { rules: [{ type: "users", userIds }] }));
      const got = await storage().flags.get("big");
      expect(got?.rules[0]).toEqual({ type: "users", userIds });
    });

    it("returns copies: changing a returned flag does not change storage", async () => {
      await flagWrites(storage()).insert(flag("copy", { rules: [{ type: "users", userIds: ["a"] }] }));
      const got = (await storage().flags.get("copy"))!;
      (got.rules[0] as { userIds: string[] }).userIds.push("b");
      got.description = "mutated";
      expect(await storage().flags.get("copy")).toMatchObject({
        description: "flag copy",
        rules: [{ type: "users", userIds: ["a"] }],
      });
    });

    it("returns copies from list and update too", async () => {
      await flagWrites(storage()).insert(flag("copy", { rules: [{ type: "users", userIds: ["a"] }] }));
      const [listed] = await storage().flags.list({ limit: 1 });
      (listed!.rules[0] as { userIds: string[] }).userIds.push("b");
      const updated = (await flagWrites(storage()).update("copy", {
        enabled: true,
        updatedAt: Date.parse("2026-02-02T00:00:00.000Z"),
      }))!;
      (updated.rules[0] as { userIds: string[] }).userIds.push("c");
      updated.description = "mutated";
      expect(await storage().flags.get("copy")).toMatchObject({
        description: "flag copy",
        enabled: true,
        rules: [{ type: "users", userIds: ["a"] }],
      });
    });
  });
}
