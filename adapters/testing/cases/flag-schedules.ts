import { describe, expect, it } from "vitest";
import { flagWrites } from "../../../src/flags/store/index.js";
import type { DomainEvent } from "../../../src/ports/storage/domain-events.js";
import type { FlagAudit } from "../../../src/ports/storage/flag-history.js";
import type { FlagRecord } from "../../../src/ports/storage/flags.js";
import type { FlagScheduleRecord } from "../../../src/ports/storage/flag-schedules.js";
import { FlagpostError } from "../../../src/errors.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import { describeCapability, type StorageHarness } from "../harness.js";
import { flagRecord } from "./flag-fixtures.js";
import { openMigratedPair, useSharedStorages, useStorage } from "./use-storage.js";

// Scheduled flag changes: a jobs-shaped table claimed with leases, applied through a flag update
// that names the schedule, so the change, its history, its event and "applied" commit together.

const T0 = Date.parse("2026-08-01T10:00:00.000Z");
const LEASE = 10_000;
let counter = 0;

function flag(key: string): FlagRecord {
  const id = `0198aaaa-0000-7000-8000-${String(++counter).padStart(12, "0")}`;
  return flagRecord(key, id, { createdAt: T0 - 60_000, updatedAt: T0 - 60_000 });
}

function schedule(flagKey: string, atMs: number, overrides: Partial<FlagScheduleRecord> = {}): FlagScheduleRecord {
  return {
    id: `0198bbbb-0000-7000-8000-${String(++counter).padStart(12, "0")}`,
    flagKey,
    at: atMs,
    changes: { enabled: true },
    status: "pending",
    createdAt: T0 - 1000,
    createdBy: { type: "api_key", id: "k1", name: "deploy" },
    attempts: 0,
    nextAttemptAt: atMs,
    ...overrides,
  };
}

function applyAudit(s: FlagScheduleRecord, owner: string, atMs = T0): FlagAudit {
  return {
    at: atMs,
    actor: { type: "schedule", id: s.id },
    action: "scheduled_change_applied",
    schedule: { id: s.id, leaseOwner: owner },
  };
}

function event(s: FlagScheduleRecord): (stored: FlagRecord) => DomainEvent[] {
  return (stored) => [{ id: s.id.replace("bbbb", "eeee"), type: "flag.updated", createdAt: T0, data: { ...stored } }];
}

/** Applies `s` as `owner`; the error's code when the write refused. */
async function apply(storage: Storage, s: FlagScheduleRecord, owner: string): Promise<string> {
  try {
    const stored = await flagWrites(storage).update(
      s.flagKey,
      { enabled: true, updatedAt: T0 },
      applyAudit(s, owner),
      event(s),
    );
    return stored ? "applied" : "no flag";
  } catch (error) {
    if (error instanceof FlagpostError) return error.code;
    throw error;
  }
}

/**
 * As the worker does: a busy database ("unavailable": SQLite's single writer, two connections in
 * one test process) is tried again; every other answer is final.
 */
async function applyRetrying(storage: Storage, s: FlagScheduleRecord, owner: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const result = await apply(storage, s, owner);
    if (result !== "unavailable" || attempt === 50) return result;
    await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
  }
}

export function flagScheduleCases(harness: StorageHarness): void {
  describe("flag schedules", () => {
    const storage = useStorage(harness);

    it("stores schedules and lists a flag's by time then id, by status, after a position, and deletes them", async () => {
      const later = schedule("s", T0 + 2000);
      const sooner = schedule("s", T0 + 1000);
      const same = schedule("s", T0 + 2000);
      const other = schedule("other", T0);
      for (const s of [later, sooner, same, other]) await storage().flagSchedules.insert(s);
      expect(await storage().flagSchedules.get(sooner.id)).toEqual(sooner);
      const all = await storage().flagSchedules.list("s", { limit: 10 });
      expect(all.map((s) => s.id)).toEqual([sooner.id, later.id, same.id]);
      expect((await storage().flagSchedules.list("s", { limit: 10, after: sooner })).map((s) => s.id)).toEqual([
        later.id,
        same.id,
      ]);
      expect((await storage().flagSchedules.list("s", { limit: 1, after: later })).map((s) => s.id)).toEqual([same.id]);
      expect(await storage().flagSchedules.list("s", { limit: 10, status: "applied" })).toEqual([]);
      expect(await storage().flagSchedules.delete("other", sooner.id)).toBe(false); // wrong flag
      expect(await storage().flagSchedules.delete("s", sooner.id)).toBe(true);
      expect(await storage().flagSchedules.delete("s", sooner.id)).toBe(false);
      expect(await storage().flagSchedules.get(sooner.id)).toBeUndefined();
    });

    it("claims only pending schedules that are due, with a lease and one more attempt", async () => {
      const due = schedule("c", T0 - 5);
      const notYet = schedule("c", T0 + 1);
      await storage().flagSchedules.insert(due);
      await storage().flagSchedules.insert(notYet);
      const claimed = await storage().flagSchedules.claimDue(T0, 10, LEASE, "w1");
      expect(claimed).toEqual([{ ...due, attempts: 1, leaseOwner: "w1", leaseUntil: T0 + LEASE }]);
      expect(await storage().flagSchedules.claimDue(T0 + LEASE - 1, 10, LEASE, "w2")).toEqual([
        expect.objectContaining({ id: notYet.id }),
      ]);
      // Past its lease, an unfinished claim is due again (its holder died).
      expect(
        (await storage().flagSchedules.claimDue(T0 + LEASE, 10, LEASE, "w3")).map((s) => [s.id, s.attempts]),
      ).toEqual([[due.id, 2]]);
    });

    it("gives each due schedule to exactly one of many concurrent claims", async () => {
      const made = Array.from({ length: 12 }, (_, i) => schedule("many", T0 - i));
      for (const s of made) await storage().flagSchedules.insert(s);
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) => storage().flagSchedules.claimDue(T0, 3, LEASE, `w${i}`)),
      );
      const ids = claims.flat().map((s) => s.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(made.map((s) => s.id).sort());
    });

    it("applies a claimed schedule once, with its history entry and event, in the flag update", async () => {
      await flagWrites(storage()).insert(flag("a"));
      const s = schedule("a", T0);
      await storage().flagSchedules.insert(s);
      await storage().flagSchedules.claimDue(T0, 1, LEASE, "w1");
      expect(await apply(storage(), s, "w1")).toBe("applied");
      expect(await apply(storage(), s, "w1")).toBe("conflict"); // once only
      expect(await storage().flagSchedules.get(s.id)).toEqual({
        ...s,
        attempts: 1,
        status: "applied",
        finishedAt: T0,
      });
      const history = await storage().flagHistory.list("a", { limit: 10 });
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({
        action: "scheduled_change_applied",
        actor: { type: "schedule", id: s.id },
        changes: [{ path: "enabled", before: false, after: true }],
      });
      expect(await storage().flagSchedules.claimDue(T0 + 2 * LEASE, 10, LEASE, "w2")).toEqual([]);
    });

    it("changes nothing when the schedule is not held: another owner, deleted, or never claimed", async () => {
      await flagWrites(storage()).insert(flag("b"));
      const taken = schedule("b", T0);
      const deleted = schedule("b", T0);
      const unclaimed = schedule("b", T0 + 60_000);
      for (const s of [taken, deleted, unclaimed]) await storage().flagSchedules.insert(s);
      await storage().flagSchedules.claimDue(T0, 10, LEASE, "w1");
      expect(await storage().flagSchedules.delete("b", deleted.id)).toBe(true);
      const revision = await storage().flags.revision();
      expect(await apply(storage(), taken, "someone-else")).toBe("conflict");
      expect(await apply(storage(), deleted, "w1")).toBe("conflict");
      expect(await apply(storage(), unclaimed, "w1")).toBe("conflict");
      expect(await storage().flags.get("b")).toMatchObject({ enabled: false });
      expect(await storage().flagHistory.list("b", { limit: 10 })).toEqual([]);
      expect(await storage().flags.revision()).toBe(revision);
      expect((await storage().flagSchedules.get(taken.id))?.status).toBe("pending");
    });

    it("leaves the schedule alone when its flag is gone, then ends it failed or due again", async () => {
      const gone = schedule("gone", T0);
      const retried = schedule("gone", T0);
      await storage().flagSchedules.insert(gone);
      await storage().flagSchedules.insert(retried);
      await storage().flagSchedules.claimDue(T0, 10, LEASE, "w1");
      expect(await apply(storage(), gone, "w1")).toBe("no flag");
      expect((await storage().flagSchedules.get(gone.id))?.status).toBe("pending");
      const failure = { kind: "failed", at: T0 + 5, reason: "flag_not_found", message: "deleted" } as const;
      expect(await storage().flagSchedules.finish(gone.id, "w2", failure)).toBe(false); // not the holder
      expect(await storage().flagSchedules.finish(gone.id, "w1", failure)).toBe(true);
      expect(await storage().flagSchedules.finish(gone.id, "w1", failure)).toBe(false); // finished already
      expect(await storage().flagSchedules.get(gone.id)).toEqual({
        ...gone,
        attempts: 1,
        status: "failed",
        finishedAt: T0 + 5,
        failure: { reason: "flag_not_found", message: "deleted" },
      });
      const nextAttemptAt = T0 + 3000;
      expect(await storage().flagSchedules.finish(retried.id, "w1", { kind: "retry", nextAttemptAt })).toBe(true);
      expect(await storage().flagSchedules.get(retried.id)).toEqual({ ...retried, attempts: 1, nextAttemptAt });
      expect(await storage().flagSchedules.claimDue(T0 + 2999, 10, LEASE, "w2")).toEqual([]);
      expect((await storage().flagSchedules.claimDue(T0 + 3000, 10, LEASE, "w2")).map((s) => s.id)).toEqual([
        retried.id,
      ]);
    });

    it("renews held leases, lists lease owners, and frees a dead owner's leases", async () => {
      const [a, b] = [schedule("l", T0), schedule("l", T0)];
      await storage().flagSchedules.insert(a);
      await storage().flagSchedules.insert(b);
      await storage().flagSchedules.claimDue(T0, 1, LEASE, "host:1:dead");
      await storage().flagSchedules.claimDue(T0, 1, LEASE, "host:2:alive");
      expect((await storage().flagSchedules.listLeaseOwners(T0)).sort()).toEqual(["host:1:dead", "host:2:alive"]);
      expect(await storage().flagSchedules.renewLeases([a.id, b.id], "host:2:alive", T0 + 50_000)).toEqual([b.id]);
      expect(await storage().flagSchedules.releaseLeases(["host:1:dead"])).toBe(1);
      expect((await storage().flagSchedules.claimDue(T0 + 1, 10, LEASE, "host:1:new")).map((s) => s.id)).toEqual([
        a.id,
      ]);
      expect(await storage().flagSchedules.get(b.id)).toMatchObject({ leaseUntil: T0 + 50_000 });
    });
  });

  describeCapability(harness, "shared", "flag schedules shared by several processes", "openShared", () => {
    const openShared = useSharedStorages(harness);

    it("gives a due schedule to one process and applies it once, whoever tries", async () => {
      const [a, b] = await openMigratedPair(openShared);
      await flagWrites(a).insert(flag("shared-s"));
      const made = Array.from({ length: 8 }, (_, i) => schedule("shared-s", T0 - i));
      for (const s of made) await a.flagSchedules.insert(s);
      const [fromA, fromB] = await Promise.all([
        a.flagSchedules.claimDue(T0, 8, LEASE, "proc-a"),
        b.flagSchedules.claimDue(T0, 8, LEASE, "proc-b"),
      ]);
      const ids = [...fromA, ...fromB].map((s) => s.id);
      expect(ids.sort()).toEqual(made.map((s) => s.id).sort());
      // Both processes try to apply every schedule, each as its own owner: only the holder's write counts.
      const results = await Promise.all(
        made.flatMap((s) => [applyRetrying(a, s, "proc-a"), applyRetrying(b, s, "proc-b")]),
      );
      expect(
        results.filter((r) => r === "applied"),
        results.join(),
      ).toHaveLength(made.length);
      expect(results.filter((r) => r === "conflict")).toHaveLength(made.length);
      const history = await b.flagHistory.list("shared-s", { limit: 100 });
      expect(history.filter((e) => e.action === "scheduled_change_applied")).toHaveLength(made.length);
      expect((await b.flagSchedules.list("shared-s", { limit: 100, status: "applied" })).length).toBe(made.length);
    });
  });
}
