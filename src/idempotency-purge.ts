import type { Clock } from "./ports/clock.js";
import { FlagpostError } from "./errors.js";
import type { LeasedJob } from "./jobs/job-queue.js";
import { LeaseWorker } from "./jobs/lease-worker.js";
import { periodicQueue } from "./jobs/periodic-queue.js";
import type { Logger } from "./ports/logger.js";
import type { Storage } from "./ports/storage/index.js";

export interface IdempotencyPurgeOptions {
  /** How often expired Idempotency-Keys (older than 24 h) are deleted. Default 1 h. */
  intervalMs?: number;
  /** Start with `flagpost.ready()`. Default true. */
  autoStart?: boolean;
  /** How often the worker looks at the clock for a due purge. Default 1 min (or the interval, if shorter). */
  pollIntervalMs?: number;
}

export const DEFAULT_IDEMPOTENCY_PURGE_MS = 60 * 60 * 1000;

/**
 * Deletes expired idempotency records (`storage.idempotency.purgeExpired`) on a schedule: once at
 * start, then every `intervalMs`, through a {@link LeaseWorker} over a {@link periodicQueue}; and
 * with them the content slices whose email never committed (`storage.emails.purgeOrphanContent`).
 * Every process runs its own; a purge is one DELETE of rows past their expiry, harmless to repeat.
 */
export function idempotencyPurger(
  deps: { storage: Storage; clock: Clock; logger: Logger },
  options: IdempotencyPurgeOptions = {},
): LeaseWorker<LeasedJob, number> & { readonly autoStart: boolean } {
  const intervalMs = options.intervalMs ?? DEFAULT_IDEMPOTENCY_PURGE_MS;
  if (!(intervalMs > 0)) throw new FlagpostError("validation_error", "idempotencyPurge.intervalMs must be above 0");
  const { storage, clock, logger } = deps;
  const worker = new LeaseWorker(
    periodicQueue(clock, "idempotency-purge", intervalMs),
    {
      perform: async () => {
        const now = clock.now();
        const purged = await storage.idempotency.purgeExpired(now);
        // The same schedule suits the slices of large emails that never got their row.
        const slices = (await storage.emails.purgeOrphanContent?.(now)) ?? 0;
        if (slices > 0) logger.info("purged content slices without an email", { slices });
        return purged;
      },
      record: async (_job, purged) => {
        if (purged > 0) logger.info("purged expired idempotency keys", { purged });
      },
    },
    clock,
    logger,
    {
      name: "idempotency purge",
      concurrency: 1,
      // In-process only: the queue hands the job out once per interval, so the lease never matters.
      leaseMs: intervalMs,
      pollIntervalMs: options.pollIntervalMs ?? Math.min(60_000, intervalMs),
    },
  );
  return Object.assign(worker, { autoStart: options.autoStart ?? true });
}
