import { describe, expect, it } from "vitest";
import { flagWrites } from "../../../src/flags/store/index.js";
import { FlagpostError } from "../../../src/errors.js";
import type { Prerequisite } from "../../../src/flags/index.js";
import type { StorageHarness } from "../harness.js";
import { flagIds, flagRecord } from "./flag-fixtures.js";
import { useStorage } from "./use-storage.js";

const nextId = flagIds();
const flag = (key: string, prerequisites: Prerequisite[] = []) =>
  flagRecord(key, nextId(), { enabled: true, prerequisites });

const on = (flagKey: string): Prerequisite => ({ flagKey, enabled: true });
let tick = 0;
const later = () => Date.UTC(2026, 1, 2) + ++tick;

async function refusal(work: Promise<unknown>): Promise<FlagpostError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FlagpostError);
  return error as FlagpostError;
}

/** The port's prerequisite contract (src/ports/storage/flags.ts), checked inside each write. */
export function prerequisiteCases(harness: StorageHarness): void {
  describe("flag prerequisites", () => {
    const storage = useStorage(harness);

    it("stores prerequisites, reads them back, replaces them on update and keeps them when an update omits them", async () => {
      await flagWrites(storage()).insert(flag("base"));
      await flagWrites(storage()).insert(flag("other"));
      await flagWrites(storage()).insert(flag("top", [on("base"), { flagKey: "other", enabled: false }]));
      expect((await storage().flags.get("top"))?.prerequisites).toEqual([
        on("base"),
        { flagKey: "other", enabled: false },
      ]);
      expect((await storage().flags.get("base"))?.prerequisites).toEqual([]);
      await flagWrites(storage()).update("top", { description: "kept", updatedAt: later() });
      expect((await storage().flags.get("top"))?.prerequisites).toHaveLength(2);
      const replaced = await flagWrites(storage()).update("top", { prerequisites: [on("other")], updatedAt: later() });
      expect(replaced?.prerequisites).toEqual([on("other")]);
      const cleared = await flagWrites(storage()).update("top", { prerequisites: [], updatedAt: later() });
      expect(cleared?.prerequisites).toEqual([]);
      expect((await storage().flags.list({ limit: 10 })).map((f) => f.prerequisites)).toEqual([[], [], []]);
    });

    it("refuses a prerequisite that names no flag, or the flag itself, with a validation error naming it; nothing is stored", async () => {
      const revision = await storage().flags.revision();
      const unknown = await refusal(flagWrites(storage()).insert(flag("top", [on("ghost")])));
      expect(unknown.code).toBe("validation_error");
      expect(unknown.details).toEqual([{ path: "prerequisites.0.flagKey", message: 'names no flag ("ghost")' }]);
      expect(await storage().flags.get("top")).toBeUndefined();
      expect(await storage().flags.revision()).toBe(revision);

      await flagWrites(storage()).insert(flag("self"));
      const self = await refusal(
        flagWrites(storage()).update("self", { prerequisites: [on("self")], updatedAt: later() }),
      );
      expect(self.code).toBe("validation_error");
      expect(self.details?.[0]?.path).toBe("prerequisites.0.flagKey");
      expect((await storage().flags.get("self"))?.prerequisites).toEqual([]);
    });

    it("refuses a write that would close a cycle, and leaves the flag as it was", async () => {
      await flagWrites(storage()).insert(flag("a"));
      await flagWrites(storage()).insert(flag("b", [on("a")]));
      await flagWrites(storage()).insert(flag("c", [on("b")]));
      const error = await refusal(flagWrites(storage()).update("a", { prerequisites: [on("c")], updatedAt: later() }));
      expect(error.code).toBe("validation_error");
      expect(error.message).toContain("a → c → b → a");
      expect(await storage().flags.get("a")).toMatchObject({
        prerequisites: [],
        updatedAt: Date.parse("2026-01-02T03:04:05.006Z"),
      });
    });

    it("allows a chain of 10 prerequisites below a flag and refuses an 11th, also when the bottom grows", async () => {
      await flagWrites(storage()).insert(flag("f0"));
      for (let i = 1; i <= 10; i++) await flagWrites(storage()).insert(flag(`f${i}`, [on(`f${i - 1}`)]));
      const deeper = await refusal(flagWrites(storage()).insert(flag("f11", [on("f10")])));
      expect(deeper.code).toBe("validation_error");
      expect(deeper.message).toContain("at most 10");
      await flagWrites(storage()).insert(flag("root"));
      const below = await refusal(
        flagWrites(storage()).update("f0", { prerequisites: [on("root")], updatedAt: later() }),
      );
      expect(below.message).toContain('through "f10"');
      expect((await storage().flags.get("f0"))?.prerequisites).toEqual([]);
    });

    it("refuses to delete a flag others list, naming them, and deletes it once they no longer do", async () => {
      await flagWrites(storage()).insert(flag("base"));
      await flagWrites(storage()).insert(flag("x", [on("base")]));
      await flagWrites(storage()).insert(flag("y", [{ flagKey: "base", enabled: false }]));
      const error = await refusal(flagWrites(storage()).delete("base"));
      expect(error.code).toBe("conflict");
      expect(error.message).toContain('"x", "y"');
      expect(await storage().flags.get("base")).toBeDefined();
      await flagWrites(storage()).update("x", { prerequisites: [], updatedAt: later() });
      await flagWrites(storage()).delete("y");
      expect(await flagWrites(storage()).delete("base")).toBe(true);
    });

    it("lets at most one of two racing writes that would together make a cycle succeed", async () => {
      await flagWrites(storage()).insert(flag("p"));
      await flagWrites(storage()).insert(flag("q"));
      const results = await Promise.allSettled([
        flagWrites(storage()).update("p", { prerequisites: [on("q")], updatedAt: later() }),
        flagWrites(storage()).update("q", { prerequisites: [on("p")], updatedAt: later() }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const failed = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect((failed.reason as FlagpostError).code).toBe("validation_error");
      const stored = [await storage().flags.get("p"), await storage().flags.get("q")];
      expect(stored.filter((f) => f!.prerequisites.length > 0)).toHaveLength(1);
    });

    it("never lets a delete and a write that lists the deleted flag both succeed", async () => {
      for (let round = 0; round < 3; round++) {
        await flagWrites(storage()).insert(flag(`base${round}`));
        const [removed, created] = await Promise.allSettled([
          flagWrites(storage()).delete(`base${round}`),
          flagWrites(storage()).insert(flag(`needs${round}`, [on(`base${round}`)])),
        ]);
        const deleted = removed.status === "fulfilled" && removed.value;
        expect(deleted !== (created.status === "fulfilled")).toBe(true);
        const base = await storage().flags.get(`base${round}`);
        const needs = await storage().flags.get(`needs${round}`);
        expect(needs === undefined || base !== undefined).toBe(true);
      }
    });
  });
}
