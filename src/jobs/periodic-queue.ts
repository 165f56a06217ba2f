import type { Clock } from "../ports/clock.js";
import { FlagpostError } from "../errors.js";
import type { JobQueue, LeasedJob } from "./job-queue.js";

/**
 * A {@link JobQueue} of one job, `id`, due every `intervalMs` by the clock (first at
 * `firstAtMs`, default at once): lets a {@link LeaseWorker} run periodic upkeep, such as purging
 * expired records, with its start, stop and drain, its logging, and its clock (so a fake clock
 * drives it in tests). Claiming the job schedules the next run, whatever this one's outcome: a
 * failed run is simply tried again one interval later. It lives in one process; every process
 * that runs one does the job itself, so the job must be harmless to run several times.
 */
export function periodicQueue(
  clock: Clock,
  id: string,
  intervalMs: number,
  firstAtMs = clock.now(),
): JobQueue<LeasedJob> {
  if (!(intervalMs > 0))
    throw new FlagpostError("validation_error", `${id}: the interval must be above 0 ms (got ${intervalMs})`);
  let nextAtMs = firstAtMs;
  return {
    async claim(now, limit) {
      if (limit < 1 || now < nextAtMs) return [];
      nextAtMs = now + intervalMs;
      return [{ id }];
    },
  };
}
