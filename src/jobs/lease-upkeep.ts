import { FlagpostError } from "../errors.js";
import { errorFields, type Logger } from "../ports/logger.js";
import type { JobQueue, LeasedJob } from "./job-queue.js";
import { deadLocalOwners } from "./owner.js";

/**
 * A LeaseWorker's upkeep of leases (lease-worker.ts runs these from its heartbeat): renewing the
 * ones it holds and freeing those of processes that died on this host; and its limits, checked.
 */

/**
 * Extends to `until` (epoch ms) the lease of every job in `held` (id → when its lease ends); a
 * job the queue no longer gives this owner is marked lost (0), so it is never started.
 */
export async function renewHeld<J extends LeasedJob>(
  queue: JobQueue<J>,
  held: Map<string, number>,
  owner: string,
  until: number,
  logger: Logger,
  name: string,
): Promise<void> {
  const ids = [...held.keys()];
  try {
    const kept = new Set(await queue.renew!(ids, owner, until));
    for (const id of ids) {
      if (!held.has(id)) continue; // finished meanwhile
      held.set(id, kept.has(id) ? until : 0); // 0: lost, never started from now on
    }
  } catch (error) {
    logger.warn(`${name}: renewing leases failed; trying at the next heartbeat`, {
      jobs: ids.length,
      ...errorFields(error),
    });
  }
}

/** Frees the leases of dead processes on this host; how many. */
export async function releaseDeadOwners<J extends LeasedJob>(
  queue: JobQueue<J>,
  now: number,
  logger: Logger,
  name: string,
): Promise<number> {
  const { owners, release } = queue;
  if (!owners || !release) return 0;
  const dead = deadLocalOwners(await owners.call(queue, now));
  if (dead.length === 0) return 0;
  const freed = await release.call(queue, dead);
  if (freed > 0)
    logger.info(`${name}: freed the leases of processes that died on this host`, { jobs: freed, owners: dead });
  return freed;
}

/** A LeaseWorker's limits, checked: slots, and a lease longer than the longest job and the heartbeat. */
export function checkWorkerTimes(
  name: string,
  concurrency: number,
  leaseMs: number,
  startMarginMs: number,
  heartbeatMs: number,
): void {
  const invalid = (message: string) => new FlagpostError("validation_error", `${name}: ${message}`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw invalid("concurrency must be an integer of at least 1");
  if (!(leaseMs > startMarginMs))
    throw invalid("the lease must exceed the longest job, or a slow job could lose its lease and run twice");
  if (!(heartbeatMs > 0 && heartbeatMs < leaseMs)) throw invalid("heartbeatMs must be above 0 and below leaseMs");
}
