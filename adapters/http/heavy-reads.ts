import type { RouteContext, RouteResult } from "./types.js";

// One definition for the HTTP limit here and the storage's own connections (adapters/kysely/heavy-reads.ts).
export { isHeavyEventQuery } from "../../src/events/index.js";

/**
 * Reads that scan many rows (experiment results, event queries over a long window) hold a storage
 * connection, or SQLite's event loop, for seconds (the SQL storage runs them on connections of their own:
 * docs/reliability.md, "Heavy reads"). One key may run at most {@link HEAVY_READS_PER_KEY}
 * of them at once; beyond that it gets 429 with Retry-After at once instead of queueing, so one
 * client's dashboard cannot take every connection the other requests need.
 */
export const HEAVY_READS_PER_KEY = 2;
const RETRY_AFTER_SECONDS = "1";

export class HeavyReads {
  readonly #running = new Map<string, number>();

  /** Runs `read` for the request's key, or answers 429 when the key already runs its share. */
  async run(ctx: RouteContext, read: () => Promise<RouteResult>): Promise<RouteResult> {
    const key = ctx.apiKey.id;
    const running = this.#running.get(key) ?? 0;
    if (running >= HEAVY_READS_PER_KEY)
      return {
        status: 429,
        body: {
          error: {
            code: "rate_limit_exceeded",
            message: `At most ${HEAVY_READS_PER_KEY} experiment results or long event queries run at once per API key; retry after the time in Retry-After`,
          },
        },
        headers: { "retry-after": RETRY_AFTER_SECONDS },
      };
    this.#running.set(key, running + 1);
    try {
      return await read();
    } finally {
      const left = (this.#running.get(key) ?? 1) - 1;
      if (left > 0) this.#running.set(key, left);
      else this.#running.delete(key);
    }
  }
}
