import { createRequire } from "node:module";
import { serveCalls } from "./lib/child.js";
import type { LoadRequest } from "./ofrep-workload.js";
import { LatencyHistogram } from "./lib/latency-histogram.js";

/**
 * bench:ofrep's load generator, in a process of its own pinned to the other core: autocannon
 * over the requests it is given (each connection cycles through them), latencies kept at 10 µs
 * resolution as bench/http-load.ts keeps them (autocannon's own histogram rounds to whole ms).
 */

interface Instance extends PromiseLike<{ duration: number; errors: number; timeouts: number }> {
  on(event: "response", listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
const autocannon = createRequire(import.meta.url)("autocannon") as (options: Record<string, unknown>) => Instance;

export interface OfrepLoad {
  url: string;
  requests: LoadRequest[];
  /** The status every answer must have; any other counts as wrong. */
  status: number;
  connections: number;
  seconds: number;
}

export interface OfrepLoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers with another status, socket errors and timeouts. */
  wrong: number;
  /** Answers with the expected status. */
  answered: number;
}

async function run(load: OfrepLoad): Promise<OfrepLoadResult> {
  const latencies = new LatencyHistogram();
  let ok = 0;
  let wrong = 0;
  const instance = autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.seconds,
    sampleInt: 100,
    requests: load.requests,
  });
  instance.on("response", (_client, status, _bytes, ms) => {
    if (status !== load.status) {
      wrong++;
      return;
    }
    ok++;
    latencies.record(ms);
  });
  const result = await instance;
  return {
    rps: ok / result.duration,
    p50Ms: latencies.quantile(0.5),
    p99Ms: latencies.quantile(0.99),
    wrong: wrong + result.errors + result.timeouts,
    answered: ok,
  };
}

serveCalls({ run });
