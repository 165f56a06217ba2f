import type { RouteMatch } from "./router.js";

/**
 * HTTP requests by route template (never the raw path: `/v1/emails/:id`, so an id does not make a
 * series) and status, with a latency histogram. Plain numbers, kept from the first request; the
 * exposition (metrics.ts) reads them at scrape time. A request costs two Map reads keyed by
 * objects and numbers (no string built) and one bucket increment; `metrics: false` skips it all.
 */

/** Seconds; prom-client's default buckets. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

export interface RequestSeries {
  method: string;
  route: string;
  status: string;
  count: number;
  sum: number;
  /** Requests per bucket of LATENCY_BUCKETS alone (not cumulative), then those past the last bucket. */
  perBucket: number[];
}

export class RequestMetrics {
  readonly series: RequestSeries[] = [];
  /** By the router's route object (one per method and template), or the method for unmatched paths; then by status. */
  readonly #byRoute = new Map<object | string, Map<number, RequestSeries>>();

  constructor(readonly enabled = true) {}

  /** One answered request; `match` is the router's (cached, so no second walk of the table). */
  observe(method: string, match: RouteMatch, status: number, startedAt: number): void {
    if (!this.enabled) return;
    const seconds = (performance.now() - startedAt) / 1000;
    const routeKey = match.kind === "found" ? match.route : method;
    let byStatus = this.#byRoute.get(routeKey);
    if (byStatus === undefined) this.#byRoute.set(routeKey, (byStatus = new Map()));
    let entry = byStatus.get(status);
    if (entry === undefined) {
      const route = match.kind === "found" ? match.route.path : "unmatched";
      entry = {
        method,
        route,
        status: String(status),
        count: 0,
        sum: 0,
        perBucket: [...LATENCY_BUCKETS, 0].map(() => 0),
      };
      byStatus.set(status, entry);
      this.series.push(entry);
    }
    entry.count += 1;
    entry.sum += seconds;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket += 1;
    entry.perBucket[bucket]! += 1;
  }
}

/** The cumulative bucket counts Prometheus expects (`le`), from a series' per-bucket counts. */
export function cumulativeBuckets(series: RequestSeries): number[] {
  let total = 0;
  return LATENCY_BUCKETS.map((_, i) => (total += series.perBucket[i]!));
}
