import { createRequire } from "node:module";
import { benchUsers, LOAD_ROUTES, type LoadRouteName } from "./http-workload.js";
import { serveCalls } from "./lib/child.js";
import { LatencyHistogram } from "./lib/latency-histogram.js";

/**
 * bench:http's load generator, in a process of its own pinned to the other core: autocannon's
 * programmatic API over pre-built requests (each connection cycles through the route's bodies),
 * with latencies kept at 10 µs resolution (autocannon's own histogram rounds to whole ms).
 */

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface Instance extends PromiseLike<AutocannonResult> {
  on(
    event: "response",
    listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void,
  ): void;
}
type Autocannon = (options: Record<string, unknown>) => Instance;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

export interface LoadOptions {
  url: string;
  route: LoadRouteName;
  key: string;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  /** Answers with the route's status, per second of the run. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers with another status, socket errors and timeouts: each fails the run. */
  wrong: number;
  seconds: number;
  /** CPU time of this process during the run, as a share of the run's wall time (1 = a full core). */
  loadCpu: number;
}

const users = benchUsers();
const bodies = Object.fromEntries(Object.values(LOAD_ROUTES).map((r) => [r.name, r.bodies(users)])) as Record<
  LoadRouteName,
  (string | undefined)[]
>;

async function run(options: LoadOptions): Promise<LoadResult> {
  const route = LOAD_ROUTES[options.route];
  const auth = { authorization: `Bearer ${options.key}` };
  const headers = { ...auth, "content-type": "application/json" };
  const latencies = new LatencyHistogram();
  let ok = 0;
  let wrong = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    // autocannon checks for the end of a run at each sample tick (default every second).
    sampleInt: 100,
    requests: bodies[options.route].map((body) =>
      body === undefined
        ? { method: route.method, path: route.path, headers: auth }
        : { method: route.method, path: route.path, headers, body },
    ),
  });
  instance.on("response", (_client, statusCode, _bytes, ms) => {
    if (statusCode !== route.status) {
      wrong++;
      return;
    }
    ok++;
    latencies.record(ms);
  });
  const result = await instance;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    rps: ok / result.duration,
    p50Ms: latencies.quantile(0.5),
    p99Ms: latencies.quantile(0.99),
    wrong: wrong + result.errors + result.timeouts,
    seconds: result.duration,
    loadCpu: (cpu.user + cpu.system) / 1e6 / seconds,
  };
}

serveCalls({ run });
