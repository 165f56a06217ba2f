import { errorFields, type Logger, type RateLimitStore, windowFor } from "../../src/internal.js";
import type { RateDecision, RateLimiter } from "./rate-limit.js";

/**
 * The per-key limit counted in a {@link RateLimitStore} shared by several processes, so they
 * allow the configured rate together rather than each. When the store cannot answer, requests
 * are counted by this process's own bucket (`fallback`) until it answers again: a store outage
 * neither refuses every request nor lifts the limit. Both are logged once.
 */
export class SharedRateLimiter {
  readonly #store: RateLimitStore;
  readonly #limit: ReturnType<typeof windowFor>;
  readonly #limitHeader: string;
  readonly #fallback: RateLimiter;
  readonly #logger: Logger;
  #failing = false;

  constructor(store: RateLimitStore, burst: number, perSecond: number, fallback: RateLimiter, logger: Logger) {
    this.#store = store;
    this.#limit = windowFor(burst, perSecond);
    this.#limitHeader = String(this.#limit.points);
    this.#fallback = fallback;
    this.#logger = logger;
  }

  /** Counts one request of `id`; writes the ratelimit headers into `headers`, as RateLimiter.take does. */
  async take(id: string, headers: Record<string, string>): Promise<RateDecision> {
    let taken;
    try {
      taken = await this.#store.take(id, this.#limit);
    } catch (error) {
      if (!this.#failing) {
        this.#logger.warn("the shared rate limit store failed; counting in this process until it answers", {
          ...errorFields(error),
        });
        this.#failing = true;
      }
      return this.#fallback.take(id, headers);
    }
    if (this.#failing) {
      this.#logger.info("the shared rate limit store answers again");
      this.#failing = false;
    }
    const reset = Math.max(0, Math.ceil(taken.resetMs / 1000));
    headers["ratelimit-limit"] = this.#limitHeader;
    headers["ratelimit-remaining"] = String(taken.remaining);
    headers["ratelimit-reset"] = String(reset);
    if (!taken.allowed) headers["retry-after"] = String(Math.max(1, reset));
    return { allowed: taken.allowed, headers };
  }
}
