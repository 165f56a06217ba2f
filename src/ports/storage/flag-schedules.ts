import type { FlagActor } from "./flag-history.js";
import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// Scheduled flag changes: a jobs-shaped table (due time, attempts, lease) claimed by whichever
// process's worker comes first. Applying one is a flag update that names the schedule in its
// audit (FlagAudit.schedule): the update, its history entry, its domain events and the move to
// "applied" commit together, so a schedule is applied at most once (see docs/flags.md).

export type FlagScheduleStatus = "pending" | "applied" | "failed";

/**
 * Why a schedule ended failed: its flag was deleted, its changes are no longer valid (a newer
 * version's schema, a prerequisite that no longer exists), or storage kept failing.
 */
export type FlagScheduleFailureReason = "flag_not_found" | "invalid_changes" | "attempts_exhausted";

export interface FlagScheduleRecord {
  /** UUIDv7. */
  id: string;
  flagKey: string;
  /** When the changes are due. */
  at: EpochMs;
  /** A PATCH body limited to what a schedule may change; validated again when applied. */
  changes: Record<string, unknown>;
  status: FlagScheduleStatus;
  createdAt: EpochMs;
  createdBy: FlagActor;
  /** Claims so far (each claim is one attempt). */
  attempts: number;
  /** Due from then on: `at` at first, later after a retry's wait. */
  nextAttemptAt: EpochMs;
  leaseOwner?: string;
  leaseUntil?: EpochMs;
  /** When it was applied or failed. */
  finishedAt?: EpochMs;
  failure?: { reason: FlagScheduleFailureReason; message: string };
}

/** How a claimed schedule ends when it was not applied: failed for good, or due again later. */
export type FlagScheduleOutcome =
  | { kind: "failed"; at: EpochMs; reason: FlagScheduleFailureReason; message: string }
  | { kind: "retry"; nextAttemptAt: EpochMs };

export interface FlagScheduleRepository {
  /** Stores a new pending schedule (`attempts` 0, no lease). */
  insert(schedule: FlagScheduleRecord): Promise<void>;

  get(id: string): Promise<FlagScheduleRecord | undefined>;

  /**
   * Up to `limit` schedules of the flag with this key (of a deleted flag too), ordered by `at`
   * then `id`, strictly after `after` in that order when given, only those with `status` when given.
   */
  list(
    flagKey: string,
    options: { status?: FlagScheduleStatus; after?: { at: EpochMs; id: string }; limit: number },
  ): Promise<FlagScheduleRecord[]>;

  /**
   * Removes the schedule of this flag with this id, whatever its status; true when it existed.
   * A pending one is then never applied: an apply racing the delete MUST either commit before it
   * (and the delete removes an applied schedule) or find the schedule gone and change nothing.
   */
  delete(flagKey: string, id: string): Promise<boolean>;

  /**
   * MUST lease up to `limit` pending schedules due at `now` (`nextAttemptAt <= now`, free or
   * with a lease that ended) to `owner` until `now + leaseMs`, add 1 to their attempts, and return
   * them, longest-due first. Each schedule goes to exactly one of several concurrent callers, in
   * this process or in others.
   */
  claimDue(now: EpochMs, limit: number, leaseMs: number, owner: string): Promise<FlagScheduleRecord[]>;

  /** Extends to `until` the leases `owner` still holds among `ids`; returns those ids. */
  renewLeases(ids: readonly string[], owner: string, until: EpochMs): Promise<string[]>;

  /** The distinct owners of unexpired leases on pending schedules at `now`. */
  listLeaseOwners(now: EpochMs): Promise<string[]>;

  /** Frees every lease `owners` hold on pending schedules (their processes died); how many. */
  releaseLeases(owners: readonly string[]): Promise<number>;

  /**
   * Ends a claim without applying: failed for good (`finishedAt` = `at`, the failure kept), or
   * due again at `nextAttemptAt`; either way the lease is dropped. Only while the schedule is
   * pending and leased by `owner`: false (and nothing changed) otherwise.
   */
  finish(id: string, owner: string, outcome: FlagScheduleOutcome): Promise<boolean>;
}
