import type { Clock } from "../../src/ports/clock.js";
import { errorFields, type Logger } from "../../src/ports/logger.js";
import { type RateLimitStore, windowFor } from "../../src/ports/rate-limit-store.js";
import type { RateDecision, RateLimiter } from "./rate-limit.js";

/**
 * The per-key limit counted in a {@link RateLimitStore} shared by several processes, so they
 * allow the configured rate together rather than each. When the store cannot answer, requests
 * are counted by this process's own bucket (`fallback`) until it answers again: a store outage
 * neither refuses every request nor lifts the limit. Both are logged once.
 *
 * A store that hangs rather than fails costs its client's command timeout on every request, so
 * a circuit breaker stands in front of it: after {@link FAILURES_TO_OPEN} failures in a row the
 * store is not asked for {@link OPEN_MS}; then one request probes it (the others keep counting
 * locally) and its answer closes the circuit, or its failure opens it again.
 */
/** Store failures in a row (timeouts, refusals) after which it is left alone for a while. */
const FAILURES_TO_OPEN = 3;
/** How long an open circuit counts locally before one request probes the store again. */
const OPEN_MS = 5_000;

export class SharedRateLimiter {
  readonly #store: RateLimitStore;
  readonly #limit: ReturnType<typeof windowFor>;
  readonly #limitHeader: string;
  readonly #fallback: RateLimiter;
  readonly #logger: Logger;
  readonly #clock: Clock;
  #failing = false;
  /** Failures in a row; the circuit opens at FAILURES_TO_OPEN. */
  #failures = 0;
  /** While the circuit is open: until when (epoch ms) the store is not asked. 0 when closed. */
  #openUntil = 0;
  #probing = false;

  constructor(
    store: RateLimitStore,
    burst: number,
    perSecond: number,
    fallback: RateLimiter,
    logger: Logger,
    clock: Clock,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#limit = windowFor(burst, perSecond);
    this.#limitHeader = String(this.#limit.points);
    this.#fallback = fallback;
    this.#logger = logger;
  }

  /** Counts one request of `id`; writes the ratelimit headers into `headers`, as RateLimiter.take does. */
  async take(id: string, headers: Record<string, string>): Promise<RateDecision> {
    if (this.#openUntil !== 0) {
      // Open: count locally until it is time to probe, and while one probe is under way.
      if (this.#probing || this.#clock.now() < this.#openUntil) return this.#fallback.take(id, headers);
      this.#probing = true;
    }
    let taken;
    try {
      taken = await this.#store.take(id, this.#limit);
    } catch (error) {
      this.#failures += 1;
      if (this.#probing || this.#failures >= FAILURES_TO_OPEN) this.#openUntil = this.#clock.now() + OPEN_MS;
      this.#probing = false;
      if (!this.#failing) {
        this.#logger.warn("the shared rate limit store failed; counting in this process until it answers", {
          ...errorFields(error),
        });
        this.#failing = true;
      }
      return this.#fallback.take(id, headers);
    }
    this.#failures = 0;
    this.#openUntil = 0;
    this.#probing = false;
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
