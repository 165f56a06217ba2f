import type { EpochMs, FlagScheduleRecord, FlagScheduleRepository } from "../ports/storage/index.js";
import { MemoryLeases, unlease } from "./memory-leases.js";
import { copy, MemoryTable } from "./memory-table.js";

/**
 * Flag schedules, with what the memory transaction needs to apply one (FlagAudit.schedule):
 * `held`, whether it is pending and leased by `owner`; `complete`, its applied half, once `held`
 * said yes, called as the flag update that applies it commits (memory-transaction.ts).
 */
export type MemoryFlagSchedules = FlagScheduleRepository & {
  held(id: string, owner: string): boolean;
  complete(id: string, at: EpochMs): void;
};

/**
 * The memory twin of `flagpost_flag_schedules`, in list order (`at`, then `id`). Methods run
 * without interleaving in one process, which is all the claim needs.
 */
export function memoryFlagSchedules(): MemoryFlagSchedules {
  const schedules = new MemoryTable<FlagScheduleRecord>((s) => s.id, { by: (s) => [s.at, s.id] });
  /** Only pending schedules are claimed, renewed or freed. */
  const leases = new MemoryLeases(schedules, (s) => s.status === "pending");
  const held = (id: string, owner: string) => {
    const s = schedules.get(id);
    return s?.status === "pending" && s.leaseOwner === owner;
  };
  return {
    insert: async (schedule) => schedules.insert([schedule], (id) => `A schedule with id "${id}" already exists`),
    get: async (id) => schedules.read(id),
    list: async (flagKey, { status, after, limit }) =>
      schedules.pageAfter(
        after && [after.at, after.id],
        limit,
        (s) => s.flagKey === flagKey && (status === undefined || s.status === status),
      ),
    delete: async (flagKey, id) => schedules.get(id)?.flagKey === flagKey && schedules.delete(id),
    claimDue: async (now, limit, leaseMs, owner) => leases.claim(now, limit, leaseMs, owner).map(copy),
    renewLeases: async (ids, owner, until) => leases.renew(ids, owner, until),
    listLeaseOwners: async (now) => leases.owners(now),
    releaseLeases: async (owners) => leases.release(owners),
    async finish(id, owner, outcome) {
      const s = schedules.get(id);
      if (s === undefined || !held(id, owner)) return false;
      unlease(s);
      if (outcome.kind === "retry") s.nextAttemptAt = outcome.nextAttemptAt;
      else
        Object.assign(s, {
          status: "failed",
          finishedAt: outcome.at,
          failure: { reason: outcome.reason, message: outcome.message },
        });
      return true;
    },
    held,
    complete(id, at) {
      const s = schedules.get(id)!;
      unlease(s);
      Object.assign(s, { status: "applied", finishedAt: at });
    },
  };
}
