/**
 * The one thing tests may fake. Everything that reads the time (timestamps, leases, idempotency
 * expiry, rate limits, retry schedules) reads it through a Clock.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** ISO-8601 UTC with milliseconds: the one time format that crosses the storage port. */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
