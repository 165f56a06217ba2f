import { describe, expect, it } from "vitest";
import { cumulativeBuckets, LATENCY_BUCKETS, RequestMetrics } from "../../adapters/http/request-metrics.js";

/** The request series behind flagpost_http_request_duration_seconds, and `metrics: false` counting nothing. */
describe("RequestMetrics", () => {
  it("files each request under one bucket and reads them back cumulative, as Prometheus's le buckets are", () => {
    const metrics = new RequestMetrics();
    const now = performance.now();
    for (const agoMs of [1, 2, 30, 700, 20_000]) metrics.observe("GET", { kind: "none" }, 404, now - agoMs);
    metrics.observe("GET", { kind: "none" }, 200, now);
    expect(metrics.series.map((s) => [s.method, s.route, s.status, s.count])).toEqual([
      ["GET", "unmatched", "404", 5],
      ["GET", "unmatched", "200", 1],
    ]);
    const buckets = cumulativeBuckets(metrics.series[0]!);
    const le = (seconds: number) => buckets[LATENCY_BUCKETS.indexOf(seconds as (typeof LATENCY_BUCKETS)[number])];
    expect([le(0.005), le(0.025), le(0.05), le(1), le(10)]).toEqual([2, 2, 3, 4, 4]); // the 20 s one is only in +Inf
  });

  it("counts nothing when metrics are off (HTTP option metrics: false)", () => {
    const metrics = new RequestMetrics(false);
    metrics.observe("GET", { kind: "none" }, 200, performance.now());
    expect(metrics.series).toEqual([]);
  });
});
