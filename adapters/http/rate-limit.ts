import type { Clock } from "../../src/ports/clock.js";
import { FlagpostError } from "../../src/errors.js";
import type { RateLimitStore } from "../../src/ports/rate-limit-store.js";

export interface RateLimitOptions {
  /** Bucket size: requests a key may make in a burst. Default 2000. */
  burst?: number;
  /** Tokens added per second: the sustained rate per key. Default 1000. */
  perSecond?: number;
  /**
   * The bucket per client address for requests without a key this process knows: no header, or a
   * key it has not seen valid lately. Taken before the key is looked up in storage, so a flood of
   * made-up keys costs no database reads past it. Default `{ burst: 100, perSecond: 20 }`.
   */
  anonymous?: { burst?: number; perSecond?: number };
  /**
   * Count the per-key limit in this store, shared by every process that uses it, instead of in
   * this process's memory (`postgresRateLimitStore` from flagpost/kysely, `redisRateLimitStore`
   * from flagpost/redis). It counts `burst` requests per window of `burst / perSecond` seconds.
   * The per-address bucket stays in the process: it guards storage from floods of made-up keys,
   * which a store on the database would turn back into database writes. Default: none.
   */
  store?: RateLimitStore;
}

export const ANONYMOUS_DEFAULTS = { burst: 100, perSecond: 20 } as const;
export const DEFAULT_KEY_LIMIT = { burst: 2000, perSecond: 1000 } as const;

export interface RateDecision {
  allowed: boolean;
  /** The ratelimit-* headers (and retry-after when refused): the object passed to take(), filled in. */
  headers: Record<string, string>;
}

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_BUCKETS = 50_000;

/**
 * A token bucket per API key (per client address for requests without a valid key), in this
 * process's memory. Headers follow the IETF RateLimit fields draft: limit, remaining, and reset
 * = seconds until the bucket is full again.
 */
export class RateLimiter {
  readonly #burst: number;
  readonly #perMs: number;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();
  readonly #limitHeader: string;

  constructor(options: Pick<RateLimitOptions, "burst" | "perSecond">, clock: Clock) {
    const burst = options.burst ?? DEFAULT_KEY_LIMIT.burst;
    const perSecond = options.perSecond ?? DEFAULT_KEY_LIMIT.perSecond;
    // A zero rate would divide by zero in Retry-After; a bucket below 1 would refuse everything.
    if (!Number.isFinite(burst) || burst < 1)
      throw new FlagpostError("validation_error", `rateLimit.burst must be a number of at least 1 (got ${burst})`);
    if (!Number.isFinite(perSecond) || perSecond <= 0)
      throw new FlagpostError("validation_error", `rateLimit.perSecond must be a number above 0 (got ${perSecond})`);
    this.#burst = burst;
    this.#limitHeader = String(burst);
    this.#perMs = perSecond / 1000;
    this.#clock = clock;
  }

  /** Takes a token from `id`'s bucket; writes the headers into `headers` (a new object when omitted). */
  take(id: string, headers: Record<string, string> = {}): RateDecision {
    const now = this.#clock.now();
    let bucket = this.#buckets.get(id);
    if (!bucket) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#prune(now);
      bucket = { tokens: this.#burst, at: now };
      this.#buckets.set(id, bucket);
    } else {
      bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.at) * this.#perMs);
      bucket.at = now;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    headers["ratelimit-limit"] = this.#limitHeader;
    headers["ratelimit-remaining"] = String(Math.floor(bucket.tokens));
    headers["ratelimit-reset"] = String(Math.ceil((this.#burst - bucket.tokens) / this.#perMs / 1000));
    if (!allowed) headers["retry-after"] = String(Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs / 1000)));
    return { allowed, headers };
  }

  /** Forgets buckets that have refilled completely: they hold no information. */
  #prune(now: number): void {
    for (const [id, b] of this.#buckets) {
      if (b.tokens + (now - b.at) * this.#perMs >= this.#burst) this.#buckets.delete(id);
    }
  }
}
