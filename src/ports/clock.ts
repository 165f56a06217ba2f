/**
 * The one thing tests may fake. Everything that reads the time (timestamps, leases, idempotency
 * expiry, rate limits, retry schedules) reads it through a Clock.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
