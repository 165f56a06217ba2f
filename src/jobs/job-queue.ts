import type { EpochMs } from "../ports/storage/index.js";
/** The two sides a {@link LeaseWorker} joins: where jobs come from, and what is done with each. */

/** A job as a queue hands it out: its id and, while leased, until when. */
export interface LeasedJob {
  id: string;
  /** When the lease ends (epoch ms), as stored by the claim. */
  leaseUntil?: EpochMs;
}

/**
 * Where a {@link LeaseWorker} takes its jobs: a table of jobs with a due time and a lease
 * (adapters/kysely/job-claims.ts implements both methods for any such table).
 */
export interface JobQueue<J extends LeasedJob> {
  /**
   * MUST lease up to `limit` due jobs to `owner` until `now + leaseMs` and return them, the
   * longest-due first. A job whose lease ended is due again (its holder died). When several
   * callers claim at once, in this process or others, each job MUST go to exactly one of them.
   */
  claim(now: EpochMs, limit: number, leaseMs: number, owner: string): Promise<J[]>;
  /**
   * MUST extend the leases `owner` still holds among `ids` to `until` and return those ids (a job
   * finished meanwhile, or taken over after its lease ended, is left out). Optional: without it,
   * leases are not renewed and `leaseMs` must outlast the longest job.
   */
  renew?(ids: readonly string[], owner: string, until: EpochMs): Promise<string[]>;
  /** Optional, with `release`: the distinct owners of leases that have not ended at `now`. */
  owners?(now: EpochMs): Promise<string[]>;
  /**
   * MUST free every lease held by one of `owners` (processes known to be dead, see owner.ts) so
   * their jobs are due at once; returns how many were freed.
   */
  release?(owners: readonly string[]): Promise<number>;
}

/** A claim to make (JobQueue.claim's arguments), when a write of results claims along with it (LeaseWorker.claimAlong). */
export interface JobClaim {
  now: EpochMs;
  limit: number;
  leaseMs: number;
  owner: string;
}

/**
 * What the worker does with each job, in two steps so the slot is free while the result is
 * stored: `perform` holds one of `concurrency` slots (the send, the HTTP call); `record` stores
 * its result (a status change or a retry, usually through a {@link GroupCommit}). A job whose
 * `record` fails keeps its lease until it ends and is then claimed again: at least once.
 */
export interface JobHandler<J extends LeasedJob, R> {
  perform(job: J): Promise<R>;
  record(job: J, result: R): Promise<void>;
  /** Told once the worker lets go of a job it claimed: recorded, failed to record, or left for its lease to end. */
  settled?(job: J): void;
  /**
   * Optional, for a `record` whose write claims the next jobs along (LeaseWorker.claimAlong): MUST
   * answer whether such a write is waiting, in which case the worker leaves the claim to it
   * instead of claiming on its own. `urgent`: slots are free and nothing is queued, so the write
   * should happen now rather than wait for others to join it.
   */
  claimAlongSoon?(urgent: boolean): boolean;
}

/** How a LeaseWorker (lease-worker.ts) runs the jobs of a queue. */
export interface LeaseWorkerOptions {
  /** Names the worker in log lines ("email outbox"). */
  name: string;
  /** Jobs performed at once; also the most one claim takes. Default 10. */
  concurrency?: number;
  /**
   * How long a claim holds a job. With a queue that renews, the worker renews every
   * `heartbeatMs` while it lives, so this bounds only how long a crashed process's jobs wait
   * (<= 30 s is the norm). A restarted process frees its dead predecessor's leases at once.
   */
  leaseMs: number;
  /** How often held leases are renewed. Default leaseMs / 3. */
  heartbeatMs?: number;
  /** A job is started only while its lease has more than this left (the longest `perform`). Default 0. */
  startMarginMs?: number;
  /** How often to look for due jobs when nothing wakes the worker. Default 1 s. */
  pollIntervalMs?: number;
  /** The lease owner; default a fresh {@link jobOwner}. */
  owner?: string;
}
