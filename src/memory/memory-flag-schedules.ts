import type {
  FlagScheduleOutcome,
  FlagScheduleRecord,
  FlagScheduleRepository,
  FlagScheduleStatus,
} from "../ports/storage/index.js";
import { MemoryLeases, unlease } from "./memory-leases.js";
import { copy, MemoryTable } from "./memory-table.js";

/**
 * The memory twin of `flagpost_flag_schedules`, in list order (`at`, then `id`). Methods run
 * without interleaving in one process, which is all the claim needs; a memory transaction
 * (memory-transaction.ts) calls `complete` when the flag update that applies the schedule commits.
 */
export class MemoryFlagScheduleRepository implements FlagScheduleRepository {
  readonly #schedules = new MemoryTable<FlagScheduleRecord>((s) => s.id, { by: (s) => [s.at, s.id] });
  /** Only pending schedules are claimed, renewed or freed. */
  readonly #leases = new MemoryLeases(this.#schedules, (s) => s.status === "pending");

  async insert(schedule: FlagScheduleRecord): Promise<void> {
    this.#schedules.insert([schedule], (id) => `A schedule with id "${id}" already exists`);
  }

  async get(id: string): Promise<FlagScheduleRecord | undefined> {
    return this.#schedules.read(id);
  }

  async list(
    flagKey: string,
    options: { status?: FlagScheduleStatus; after?: { at: string; id: string }; limit: number },
  ): Promise<FlagScheduleRecord[]> {
    const { status, after, limit } = options;
    const where = (s: FlagScheduleRecord) => s.flagKey === flagKey && (status === undefined || s.status === status);
    return this.#schedules.pageAfter(after && [after.at, after.id], limit, where);
  }

  async delete(flagKey: string, id: string): Promise<boolean> {
    return this.#schedules.get(id)?.flagKey === flagKey && this.#schedules.delete(id);
  }

  async claimDue(now: string, limit: number, leaseMs: number, owner: string): Promise<FlagScheduleRecord[]> {
    return this.#leases.claim(now, limit, leaseMs, owner).map(copy);
  }

  async renewLeases(ids: readonly string[], owner: string, until: string): Promise<string[]> {
    return this.#leases.renew(ids, owner, until);
  }

  async listLeaseOwners(now: string): Promise<string[]> {
    return this.#leases.owners(now);
  }

  async releaseLeases(owners: readonly string[]): Promise<number> {
    return this.#leases.release(owners);
  }

  async finish(id: string, owner: string, outcome: FlagScheduleOutcome): Promise<boolean> {
    const s = this.#schedules.get(id);
    if (s === undefined || !this.held(id, owner)) return false;
    unlease(s);
    if (outcome.kind === "retry") s.nextAttemptAt = outcome.nextAttemptAt;
    else
      Object.assign(s, {
        status: "failed",
        finishedAt: outcome.at,
        failure: { reason: outcome.reason, message: outcome.message },
      });
    return true;
  }

  /** Whether the schedule is pending and leased by `owner`: what the applying update needs to commit. */
  held(id: string, owner: string): boolean {
    const s = this.#schedules.get(id);
    return s?.status === "pending" && s.leaseOwner === owner;
  }

  /** The applied half of a scheduled flag update (FlagAudit.schedule), once `held` said yes. */
  complete(id: string, at: string): void {
    const s = this.#schedules.get(id)!;
    unlease(s);
    Object.assign(s, { status: "applied", finishedAt: at });
  }
}
