import { FlagpostError } from "../errors.js";
import type {
  FlagScheduleOutcome,
  FlagScheduleRecord,
  FlagScheduleRepository,
  FlagScheduleStatus,
} from "../ports/storage/index.js";

/** `a` before `b` in the list order: by `at`, then `id`. */
function before(a: { at: string; id: string }, b: { at: string; id: string }): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id);
}

function due(s: FlagScheduleRecord, now: string): boolean {
  return s.status === "pending" && s.nextAttemptAt <= now && (s.leaseUntil === undefined || s.leaseUntil <= now);
}

function dropLease(s: FlagScheduleRecord): void {
  delete s.leaseOwner;
  delete s.leaseUntil;
}

/**
 * The memory twin of `flagpost_flag_schedules`. Methods run without interleaving in one process,
 * which is all the claim needs; a memory transaction (memory-transaction.ts) calls `complete` when
 * the flag update that applies the schedule commits.
 */
export class MemoryFlagScheduleRepository implements FlagScheduleRepository {
  readonly #schedules = new Map<string, FlagScheduleRecord>();

  async insert(schedule: FlagScheduleRecord): Promise<void> {
    if (this.#schedules.has(schedule.id))
      throw new FlagpostError("conflict", `A schedule with id "${schedule.id}" already exists`);
    this.#schedules.set(schedule.id, structuredClone(schedule));
  }

  async get(id: string): Promise<FlagScheduleRecord | undefined> {
    const schedule = this.#schedules.get(id);
    return schedule && structuredClone(schedule);
  }

  async list(
    flagKey: string,
    options: { status?: FlagScheduleStatus; after?: { at: string; id: string }; limit: number },
  ): Promise<FlagScheduleRecord[]> {
    const { status, after, limit } = options;
    return [...this.#schedules.values()]
      .filter((s) => s.flagKey === flagKey && (status === undefined || s.status === status))
      .filter((s) => after === undefined || before(after, s))
      .sort((a, b) => (before(a, b) ? -1 : 1))
      .slice(0, limit)
      .map((s) => structuredClone(s));
  }

  async delete(flagKey: string, id: string): Promise<boolean> {
    if (this.#schedules.get(id)?.flagKey !== flagKey) return false;
    return this.#schedules.delete(id);
  }

  async claimDue(now: string, limit: number, leaseMs: number, owner: string): Promise<FlagScheduleRecord[]> {
    const leaseUntil = new Date(Date.parse(now) + leaseMs).toISOString();
    const claimed = [...this.#schedules.values()]
      .filter((s) => due(s, now))
      .sort((a, b) =>
        a.nextAttemptAt < b.nextAttemptAt || (a.nextAttemptAt === b.nextAttemptAt && a.id < b.id) ? -1 : 1,
      )
      .slice(0, Math.max(0, limit));
    for (const s of claimed) {
      s.leaseOwner = owner;
      s.leaseUntil = leaseUntil;
      s.attempts += 1;
    }
    return claimed.map((s) => structuredClone(s));
  }

  async renewLeases(ids: readonly string[], owner: string, until: string): Promise<string[]> {
    const renewed: string[] = [];
    for (const id of new Set(ids)) {
      const s = this.#schedules.get(id);
      if (s?.status !== "pending" || s.leaseOwner !== owner) continue;
      s.leaseUntil = until;
      renewed.push(id);
    }
    return renewed;
  }

  async listLeaseOwners(now: string): Promise<string[]> {
    const owners = new Set<string>();
    for (const s of this.#schedules.values())
      if (s.status === "pending" && s.leaseOwner !== undefined && s.leaseUntil! > now) owners.add(s.leaseOwner);
    return [...owners];
  }

  async releaseLeases(owners: readonly string[]): Promise<number> {
    let freed = 0;
    for (const s of this.#schedules.values()) {
      if (s.status !== "pending" || s.leaseOwner === undefined || !owners.includes(s.leaseOwner)) continue;
      dropLease(s);
      freed += 1;
    }
    return freed;
  }

  async finish(id: string, owner: string, outcome: FlagScheduleOutcome): Promise<boolean> {
    const s = this.#schedules.get(id);
    if (s?.status !== "pending" || s.leaseOwner !== owner) return false;
    dropLease(s);
    if (outcome.kind === "retry") {
      s.nextAttemptAt = outcome.nextAttemptAt;
    } else {
      s.status = "failed";
      s.finishedAt = outcome.at;
      s.failure = { reason: outcome.reason, message: outcome.message };
    }
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
    dropLease(s);
    s.status = "applied";
    s.finishedAt = at;
  }
}
