/**
 * The port for a rate limit shared by several processes (issue 11, item 10). The HTTP handler's
 * own token buckets live in one process's memory, so N processes behind a load balancer allow N×
 * the configured rate; a store counts every process's requests in one place (PostgreSQL, Redis).
 *
 * A shared store counts in fixed windows, as rate-limiter-flexible does: `points` requests per
 * `windowSeconds`, the window starting at an id's first request. Adapters wrap a
 * rate-limiter-flexible limiter with {@link flexibleRateLimitStore}; any other implementation of
 * `take` works too.
 */

/** A window: `points` requests per `windowSeconds` (a whole number of seconds, at least 1). */
export interface SharedLimit {
  points: number;
  windowSeconds: number;
}

export interface SharedTake {
  allowed: boolean;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Milliseconds until the current window ends (and the count starts again). */
  resetMs: number;
}

export interface RateLimitStore {
  /**
   * Counts one request of `id` against `limit`, across every process using this store. Rejects
   * when the store cannot answer (unreachable, timed out): the caller decides what then.
   */
  take(id: string, limit: SharedLimit): Promise<SharedTake>;
}

/** The part of a rate-limiter-flexible limiter the store uses. */
export interface FlexibleLimiter {
  consume(key: string, points?: number): Promise<FlexibleResult>;
}

/** rate-limiter-flexible's RateLimiterRes, as far as it is read here. */
interface FlexibleResult {
  remainingPoints: number;
  msBeforeNext: number;
}

function isFlexibleResult(value: unknown): value is FlexibleResult {
  return (
    typeof value === "object" &&
    value !== null &&
    !(value instanceof Error) &&
    typeof (value as FlexibleResult).msBeforeNext === "number"
  );
}

/**
 * A store over rate-limiter-flexible: one limiter per distinct limit (a limiter's points and
 * duration are fixed when it is built), made by `create` on first use. `consume` resolves when
 * the request is within the limit and rejects with a RateLimiterRes when it is not, or with an
 * Error when the store failed; only the Error reaches the caller.
 */
export function flexibleRateLimitStore(create: (limit: SharedLimit) => FlexibleLimiter): RateLimitStore {
  const limiters = new Map<string, FlexibleLimiter>();
  return {
    async take(id, limit) {
      const name = `${limit.points}/${limit.windowSeconds}`;
      let limiter = limiters.get(name);
      if (limiter === undefined) {
        limiter = create(limit);
        limiters.set(name, limiter);
      }
      try {
        const result = await limiter.consume(id, 1);
        return { allowed: true, remaining: result.remainingPoints, resetMs: result.msBeforeNext };
      } catch (rejection) {
        if (!isFlexibleResult(rejection)) throw rejection;
        return { allowed: false, remaining: 0, resetMs: rejection.msBeforeNext };
      }
    },
  };
}

/**
 * The window a token bucket of `burst` refilled at `perSecond` becomes: `burst` requests per
 * `burst / perSecond` seconds, rounded to whole seconds (Redis expires keys by the second), at
 * least 1 — the same sustained rate, and the same burst from a standing start.
 */
export function windowFor(burst: number, perSecond: number): SharedLimit {
  return { points: burst, windowSeconds: Math.max(1, Math.round(burst / perSecond)) };
}
