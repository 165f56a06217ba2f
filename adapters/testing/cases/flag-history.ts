import { describe, expect, it } from "vitest";
import { flagWrites } from "../../../src/flags/store/index.js";
import type { FlagAudit } from "../../../src/ports/storage/flag-history.js";
import type { FlagRecord } from "../../../src/ports/storage/flags.js";
import { FlagpostError } from "../../../src/errors.js";
import type { StorageHarness } from "../harness.js";
import { flagIds, flagRecord } from "./flag-fixtures.js";
import { useStorage } from "./use-storage.js";

const nextId = flagIds();
const flag = (key: string, overrides: Partial<FlagRecord> = {}) => flagRecord(key, nextId(), overrides);

const KEY = { type: "api_key", id: "key-1", name: "ci deploy" } as const;
function audit(actor: FlagAudit["actor"] = KEY, action?: FlagAudit["action"]): FlagAudit {
  return { at: Date.parse("2026-03-04T05:06:07.089Z"), actor, ...(action ? { action } : {}) };
}
const at = (ms: number) => Date.UTC(2026, 1, 2) + ms;

export function flagHistoryCases(harness: StorageHarness): void {
  describe("flag history", () => {
    const storage = useStorage(harness);

    it("records create, per-path update and delete with the actor, newest first, and keeps them after the delete", async () => {
      const create = audit();
      await flagWrites(storage()).insert(
        flag("h", { description: "d", rules: [{ type: "percentage", percentage: 10 }] }),
        create,
      );
      const update = audit({ type: "in_process" });
      await flagWrites(storage()).update(
        "h",
        { enabled: true, rules: [{ type: "percentage", percentage: 25 }], updatedAt: at(1) },
        update,
      );
      const remove = audit();
      expect(await flagWrites(storage()).delete("h", remove)).toBe(true);

      const entries = await storage().flagHistory.list("h", { limit: 10 });
      expect(entries.map((e) => e.action)).toEqual(["deleted", "updated", "created"]);
      expect(entries[2]).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
        flagKey: "h",
        action: "created",
        at: create.at,
        actor: KEY,
        changes: [
          { path: "description", before: null, after: "d" },
          { path: "enabled", before: null, after: false },
          { path: "prerequisites", before: null, after: [] },
          { path: "rules", before: null, after: [{ type: "percentage", percentage: 10 }] },
          { path: "variants", before: null, after: [] },
        ],
      });
      expect(entries[1]!.actor).toEqual({ type: "in_process" });
      expect(entries[1]!.changes).toEqual([
        { path: "enabled", before: false, after: true },
        { path: "rules.0.percentage", before: 10, after: 25 },
      ]);
      expect(entries[0]!.changes).toContainEqual({ path: "enabled", before: true, after: null });
    });

    it("describes the update against the stored flag, not the caller's idea of it", async () => {
      await flagWrites(storage()).insert(flag("race"), audit());
      await flagWrites(storage()).update("race", { description: "first", updatedAt: at(1) }, audit());
      await flagWrites(storage()).update("race", { description: "second", updatedAt: at(2) }, audit());
      const [latest] = await storage().flagHistory.list("race", { limit: 1 });
      expect(latest!.changes).toEqual([{ path: "description", before: "first", after: "second" }]);
    });

    it("keeps one entry per write when writes of one flag race", async () => {
      await flagWrites(storage()).insert(flag("busy"), audit());
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          flagWrites(storage()).update("busy", { description: `d${i}`, updatedAt: at(i + 1) }, audit()),
        ),
      );
      const entries = await storage().flagHistory.list("busy", { limit: 100 });
      expect(entries).toHaveLength(7);
      // Each update's "before" is the value the previous committed update left: a chain, no gaps.
      const chain = entries
        .slice(0, 6)
        .reverse()
        .map((e) => e.changes[0]!);
      expect(chain[0]!.before).toBe("");
      for (let i = 1; i < chain.length; i++) expect(chain[i]!.before).toBe(chain[i - 1]!.after);
    });

    it("pages newest first with `before`, and lists only the flag asked for", async () => {
      await flagWrites(storage()).insert(flag("p"), audit());
      await flagWrites(storage()).insert(flag("other"), audit());
      for (let i = 0; i < 4; i++)
        await flagWrites(storage()).update("p", { description: `v${i}`, updatedAt: at(i) }, audit());
      const all = await storage().flagHistory.list("p", { limit: 100 });
      expect(all).toHaveLength(5);
      expect(all.every((e) => e.flagKey === "p")).toBe(true);
      const first = await storage().flagHistory.list("p", { limit: 2 });
      const second = await storage().flagHistory.list("p", { limit: 2, before: first[1]!.id });
      const third = await storage().flagHistory.list("p", { limit: 2, before: second[1]!.id });
      expect([...first, ...second, ...third].map((e) => e.id)).toEqual(all.map((e) => e.id));
    });

    it("records the schedule as actor and the applied-schedule action", async () => {
      await flagWrites(storage()).insert(flag("s"), audit());
      await flagWrites(storage()).update(
        "s",
        { enabled: true, updatedAt: at(1) },
        audit({ type: "schedule", id: "sched-1" }, "scheduled_change_applied"),
      );
      const [latest] = await storage().flagHistory.list("s", { limit: 1 });
      expect(latest).toMatchObject({ action: "scheduled_change_applied", actor: { type: "schedule", id: "sched-1" } });
    });

    it("stores no entry for a refused insert or a write to an unknown key", async () => {
      await flagWrites(storage()).insert(flag("once"), audit());
      await expect(flagWrites(storage()).insert(flag("once"), audit())).rejects.toBeInstanceOf(FlagpostError);
      expect(await flagWrites(storage()).update("ghost", { enabled: true, updatedAt: at(1) }, audit())).toBeUndefined();
      expect(await flagWrites(storage()).delete("ghost", audit())).toBe(false);
      expect(await storage().flagHistory.list("once", { limit: 10 })).toHaveLength(1);
      expect(await storage().flagHistory.list("ghost", { limit: 10 })).toEqual([]);
    });

    it("writes nothing to the history when the caller gives no audit", async () => {
      await flagWrites(storage()).insert(flag("quiet"));
      await flagWrites(storage()).update("quiet", { enabled: true, updatedAt: at(1) });
      expect(await storage().flagHistory.list("quiet", { limit: 10 })).toEqual([]);
    });
  });
}
