import type { Clock } from "../../ports/clock.js";
import { isFlagpostError } from "../../errors.js";
import type { JobQueue } from "../../jobs/job-queue.js";
import { LeaseWorker } from "../../jobs/lease-worker.js";
import { checkRetryPolicy, type RetryPolicy, retryDelay } from "../../jobs/retry-policy.js";
import type { Logger } from "../../ports/logger.js";
import type {
  FlagScheduleFailureReason,
  FlagScheduleOutcome,
  FlagScheduleRecord,
  Storage,
} from "../../ports/storage/index.js";
import { parseInput } from "../../validation.js";
import { isoFromMs } from "../../time.js";
import { scheduleChangesSchema } from "./flag-schedules.js";
import type { FlagStore } from "../store/flag-store.js";

export interface ScheduleWorkerOptions {
  /** Start with `flagpost.ready()`. Default true: any process may apply any schedule. */
  autoStart?: boolean;
  /**
   * How often to look for due schedules (those made by other processes; this process's own also
   * wake it at their time). Default 1 s, so a schedule applies within 2 s of its time.
   */
  pollIntervalMs?: number;
  /** How long a claim holds a schedule; renewed while the process lives. Default 10 s. */
  leaseMs?: number;
  /** When storage fails while applying: attempts and backoff. Default 10 attempts, 1 s doubling to 1 min. */
  retry?: Partial<RetryPolicy>;
}

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 10, initialDelayMs: 1_000, maxDelayMs: 60_000 };
/** setTimeout's largest delay; a later wake-up is left to the poll. */
const MAX_TIMER_MS = 2 ** 31 - 1;

type Outcome =
  | { kind: "applied" }
  /** Deleted meanwhile, or its lease ended and another worker has it: nothing to record. */
  | { kind: "lost" }
  | { kind: "failed"; reason: FlagScheduleFailureReason; message: string }
  | { kind: "retry"; message: string };

/**
 * Applies due scheduled changes: a {@link LeaseWorker} over `storage.flagSchedules`, so of all the
 * processes sharing the storage exactly one claims each schedule. Applying is `flags.update` with
 * the schedule named in its options: the change, its history entry (`scheduled_change_applied`,
 * actor `{type: "schedule", id}`), its `flag.updated` event and the schedule's move to "applied"
 * commit in one transaction, and the in-process snapshot hears of it like any write.
 *
 * A schedule whose flag is gone ends failed with `flag_not_found`; one whose changes no longer
 * pass the PATCH rules (an unknown prerequisite, say) with `invalid_changes`; storage errors are
 * retried with backoff and end in `attempts_exhausted` past the budget.
 */
export class ScheduleWorker {
  readonly autoStart: boolean;
  readonly #storage: Storage;
  readonly #flags: FlagStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #retry: RetryPolicy;
  readonly #worker: LeaseWorker<FlagScheduleRecord, Outcome>;
  #wakeTimer: NodeJS.Timeout | undefined;
  #wakeAtMs = Number.POSITIVE_INFINITY;

  constructor(
    deps: { storage: Storage; flags: FlagStore; clock: Clock; logger: Logger },
    options: ScheduleWorkerOptions = {},
  ) {
    this.#storage = deps.storage;
    this.#flags = deps.flags;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.autoStart = options.autoStart ?? true;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    checkRetryPolicy(this.#retry, "flagSchedules.retry");
    const schedules = deps.storage.flagSchedules;
    const queue: JobQueue<FlagScheduleRecord> = {
      claim: (now, limit, leaseMs, owner) => schedules.claimDue(now, limit, leaseMs, owner),
      renew: (ids, owner, until) => schedules.renewLeases(ids, owner, until),
      owners: (now) => schedules.listLeaseOwners(now),
      release: (owners) => schedules.releaseLeases(owners),
    };
    const leaseMs = options.leaseMs ?? 10_000;
    this.#worker = new LeaseWorker(
      queue,
      { perform: (s) => this.#apply(s), record: (s, outcome) => this.#record(s, outcome) },
      deps.clock,
      deps.logger,
      {
        name: "flag schedules",
        concurrency: 4,
        leaseMs,
        startMarginMs: leaseMs / 2,
        pollIntervalMs: options.pollIntervalMs ?? 1_000,
      },
    );
  }

  /** This worker's name in leases. */
  get owner(): string {
    return this.#worker.owner;
  }

  get running(): boolean {
    return this.#worker.running;
  }

  start(): void {
    this.#worker.start();
  }

  /** Stops claiming; resolves once the schedules already claimed are applied and recorded. */
  async stop(): Promise<void> {
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    await this.#worker.stop();
  }

  wake(): void {
    this.#worker.wake();
  }

  /** Wakes the worker at `atMs` (epoch ms), so a schedule of this process does not wait for the poll. */
  wakeAt(atMs: number): void {
    if (!this.#worker.running) return;
    const delay = atMs - this.#clock.now();
    if (delay <= 0) return this.wake();
    if (this.#wakeTimer !== undefined && this.#wakeAtMs <= atMs) return; // an earlier wake-up covers it
    if (delay > MAX_TIMER_MS) return;
    clearTimeout(this.#wakeTimer);
    this.#wakeAtMs = atMs;
    this.#wakeTimer = setTimeout(() => {
      this.#wakeTimer = undefined;
      this.#wakeAtMs = Number.POSITIVE_INFINITY;
      this.wake();
    }, delay);
    this.#wakeTimer.unref();
  }

  /** One round for tests and scripts: claims what is due, applies and records it; how many were claimed. */
  runOnce(): Promise<number> {
    return this.#worker.runOnce();
  }

  async #apply(schedule: FlagScheduleRecord): Promise<Outcome> {
    try {
      const changes = parseInput(scheduleChangesSchema, schedule.changes);
      await this.#flags.update(schedule.flagKey, changes, {
        actor: { type: "schedule", id: schedule.id },
        schedule: { id: schedule.id, leaseOwner: this.owner },
      });
      return { kind: "applied" };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (isFlagpostError(error, "not_found")) return { kind: "failed", reason: "flag_not_found", message };
      if (isFlagpostError(error, "validation_error")) return { kind: "failed", reason: "invalid_changes", message };
      if (isFlagpostError(error, "conflict")) return { kind: "lost" };
      return { kind: "retry", message };
    }
  }

  async #record(schedule: FlagScheduleRecord, outcome: Outcome): Promise<void> {
    const fields = { id: schedule.id, flag: schedule.flagKey };
    if (outcome.kind === "applied") return this.#logger.info("scheduled flag change applied", fields);
    if (outcome.kind === "lost")
      return this.#logger.warn("scheduled flag change not applied: deleted meanwhile or taken over", fields);
    const now = this.#clock.now();
    if (outcome.kind === "retry" && schedule.attempts < this.#retry.maxAttempts) {
      const nextAttemptAt = now + retryDelay(this.#retry, schedule.attempts);
      this.#logger.warn("applying a scheduled flag change failed; will retry", {
        ...fields,
        attempt: schedule.attempts,
        next_attempt_at: isoFromMs(nextAttemptAt),
        error: outcome.message,
      });
      await this.#finish(schedule, { kind: "retry", nextAttemptAt });
      return;
    }
    const failure =
      outcome.kind === "failed"
        ? outcome
        : {
            reason: "attempts_exhausted" as const,
            message: `gave up after ${schedule.attempts} attempts: ${outcome.message}`,
          };
    this.#logger.warn("scheduled flag change failed", { ...fields, reason: failure.reason, error: failure.message });
    await this.#finish(schedule, { kind: "failed", at: now, ...failure });
  }

  /** A failure to store this propagates: the LeaseWorker logs it, and the schedule is claimed again after its lease. */
  async #finish(schedule: FlagScheduleRecord, outcome: FlagScheduleOutcome): Promise<void> {
    if (!(await this.#storage.flagSchedules.finish(schedule.id, this.owner, outcome)))
      this.#logger.warn("scheduled flag change outcome not recorded: deleted meanwhile or taken over", {
        id: schedule.id,
      });
  }
}
