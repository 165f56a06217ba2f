import type { RouteMatch } from "./router.js";

/**
 * HTTP requests by route template (never the raw path: `/v1/emails/:id`, so an id does not make a
 * series) and status, with a latency histogram. Plain numbers, kept from the first request; the
 * exposition (metrics.ts) reads them at scrape time.
 */

/** Seconds; prom-client's default buckets. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

export interface RequestSeries {
  method: string;
  route: string;
  status: string;
  count: number;
  sum: number;
  /** Cumulative per bucket of LATENCY_BUCKETS. */
  buckets: number[];
}

export class RequestMetrics {
  readonly series = new Map<string, RequestSeries>();

  /** One answered request; `match` is the router's (remembered, so no second walk of the table). */
  observe(method: string, match: RouteMatch, status: number, startedAt: number): void {
    const seconds = (performance.now() - startedAt) / 1000;
    const route = match.kind === "found" ? match.route.path : "unmatched";
    const key = `${method} ${route} ${status}`;
    let entry = this.series.get(key);
    if (entry === undefined) {
      entry = { method, route, status: String(status), count: 0, sum: 0, buckets: LATENCY_BUCKETS.map(() => 0) };
      this.series.set(key, entry);
    }
    entry.count += 1;
    entry.sum += seconds;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (seconds <= LATENCY_BUCKETS[i]!) entry.buckets[i]! += 1;
  }
}
