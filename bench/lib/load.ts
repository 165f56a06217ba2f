import { loadavg } from "node:os";

/**
 * Above this 1-minute load at a part's start, the machine (2 cores here) was busy with something
 * else and the part's ratios compare a loaded run with itself: the part is marked noisy.
 */
export const NOISY_LOAD = 1.5;

/** The 1-minute load average, rounded for printing. */
export function oneMinuteLoad(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

/** The line under a part's tables: the load before and after it, and whether it was noisy. */
export function loadLine(before: number, after: number): string {
  const noisy = before > NOISY_LOAD;
  const verdict = noisy
    ? `**noisy**: the 1-minute load was above ${NOISY_LOAD} at the start; rerun on a quiet machine before reading these ratios`
    : "quiet start";
  return `_1-minute load ${before.toFixed(2)} before, ${after.toFixed(2)} after (${verdict})._`;
}
