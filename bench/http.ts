import { loadavg } from "node:os";
import type { LoadOptions, LoadResult } from "./http-load.js";
import { ROUTES, type RouteName, type ServerReady } from "./http-workload.js";
import { canPin, type Child, startChild } from "./lib/child.js";
import type { BenchPart } from "./lib/part.js";
import { fmt } from "./lib/stats.js";
import { report, type Sample, type Settings, type Variant } from "./http-report.js";

/**
 * `npm run bench:http`: flagpost's HTTP routes (evaluate, one event, the flag snapshot) under
 * load, beside a bare node:http server that answers the same JSON (the floor) and the same on
 * bare Fastify, bare Express 5 and bare Hono, each flagpost mount held to its own framework. Each server runs in a process of its own
 * pinned to core 0; autocannon runs in another process pinned to core 1; 50 connections on
 * 127.0.0.1. Runs are interleaved (every server once per round), so slow phases of a noisy
 * machine hit all of them alike; the tables hold medians over rounds and ratios to the floor.
 *
 * BENCH_HTTP_PROFILE=<dir> runs every server with `--cpu-prof` into that directory.
 * BENCH_HTTP_STORAGE=sqlite puts flagpost on a SQLite file opened as `flagpost serve` opens it
 * instead of memory storage (evaluate does not read storage; POST /v1/events writes to it).
 */

const STORAGE: Variant["storage"] = process.env.BENCH_HTTP_STORAGE === "sqlite" ? "sqlite" : "memory";

const VARIANTS: Variant[] = [
  { id: "floor-node", label: "bare node:http (floor)", kind: "floor-node", storage: "memory", tier: "main" },
  { id: "flagpost-node", label: "flagpost toNodeHandler", kind: "flagpost-node", storage: STORAGE, tier: "main" },
  {
    id: "flagpost-node-no-metrics",
    label: "flagpost toNodeHandler, metrics off",
    kind: "flagpost-node-no-metrics",
    storage: STORAGE,
    tier: "main",
  },
  { id: "floor-fastify", label: "bare Fastify", kind: "floor-fastify", storage: "memory", tier: "mounts" },
  { id: "floor-express", label: "bare Express 5", kind: "floor-express", storage: "memory", tier: "mounts" },
  {
    id: "floor-hono",
    label: "bare Hono (@hono/node-server)",
    kind: "floor-hono",
    storage: "memory",
    tier: "mounts",
  },
  { id: "flagpost-express", label: "flagpost toExpress", kind: "flagpost-express", storage: STORAGE, tier: "mounts" },
  { id: "flagpost-fastify", label: "flagpost toFastify", kind: "flagpost-fastify", storage: STORAGE, tier: "mounts" },
  {
    id: "flagpost-hono",
    label: "flagpost toHono (@hono/node-server)",
    kind: "flagpost-hono",
    storage: STORAGE,
    tier: "mounts",
  },
];

const FULL: Settings = { connections: 50, warmupSeconds: 0.5, rounds: 3, seconds: { main: 10, mounts: 2.5 } };
const SMOKE: Settings = { connections: 10, warmupSeconds: 0, rounds: 1, seconds: { main: 0.2, mounts: 0.2 } };

interface Running {
  variant: Variant;
  child: Child<ServerReady>;
  url: string;
}

async function send(
  running: Running,
  route: RouteName,
  body: string | undefined,
): Promise<{ status: number; json: unknown }> {
  const r = ROUTES[route];
  const auth = { authorization: `Bearer ${running.child.ready.key}` };
  const response = await fetch(running.url + r.path, {
    method: r.method,
    headers: body === undefined ? auth : { ...auth, "content-type": "application/json" },
    body,
  });
  return { status: response.status, json: await response.json() };
}

/** Whether `got` answers `route` as the floor did: the same evaluation, an accepted event, the same flag keys. */
function sameAnswer(route: RouteName, got: unknown, expected: unknown): boolean {
  if (route === "evaluate") return JSON.stringify(got) === JSON.stringify(expected);
  if (route === "events") return (got as { data?: { status?: string } }).data?.status === "accepted";
  const keys = (body: unknown) => (body as { data: { flags: { key: string }[] } }).data.flags.map((f) => f.key).join();
  return keys(got) === keys(expected);
}

/**
 * Every server must give the floor's answers before anything is timed. Returns the routes that
 * flagpost serves on this branch (a route it does not know yet answers 404 and is left out).
 */
async function checkAnswers(servers: Running[], log: (line: string) => void): Promise<RouteName[]> {
  const { benchUsers } = await import("./http-workload.js");
  const users = benchUsers();
  const routes: RouteName[] = [];
  for (const route of Object.keys(ROUTES) as RouteName[]) {
    const bodies = ROUTES[route].bodies(users).slice(0, 40);
    const ours = servers.find((s) => s.variant.kind === "flagpost-node")!;
    if ((await send(ours, route, bodies[0])).status === 404) {
      log(`${ROUTES[route].path}: flagpost answers 404 on this branch; route left out`);
      continue;
    }
    for (const body of bodies) {
      const expected = await send(servers[0]!, route, body);
      for (const server of servers) {
        const got = await send(server, route, body);
        const same = got.status === ROUTES[route].status && sameAnswer(route, got.json, expected.json);
        if (!same)
          throw new Error(
            `${server.variant.label} answered ${route} with ${got.status} ${JSON.stringify(got.json)}; the floor with ${JSON.stringify(expected.json)}`,
          );
      }
    }
    routes.push(route);
  }
  return routes;
}

async function measure(
  load: Child,
  server: Running,
  route: RouteName,
  seconds: number,
  connections: number,
): Promise<Sample> {
  await server.child.call("reset"); // events stored by earlier runs would grow the heap run after run
  const cpu0 = await server.child.call<number>("cpu");
  const t0 = performance.now();
  const options: LoadOptions = { url: server.url, route, key: server.child.ready.key, connections, seconds };
  const result = await load.call<LoadResult>("run", options);
  const wall = (performance.now() - t0) / 1000;
  const cpu1 = await server.child.call<number>("cpu");
  if (result.wrong > 0)
    throw new Error(
      `${server.variant.label} ${route}: ${result.wrong} answers were errors or not ${ROUTES[route].status}`,
    );
  return { ...result, serverCpu: (cpu1 - cpu0) / 1e6 / wall };
}

export const httpBench: BenchPart = {
  name: "http",
  title: "HTTP: evaluate, one event and the flag snapshot, each mount against its bare framework",
  async run({ smoke, log }) {
    const settings = smoke ? SMOKE : FULL;
    const load = [loadavg()[0]!];
    const profileDir = process.env.BENCH_HTTP_PROFILE;
    const execArgv = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [];
    const serverFile = new URL("./http-servers.ts", import.meta.url);
    const started = await Promise.allSettled([
      startChild<unknown>(new URL("./http-load.ts", import.meta.url), [], { core: 1 }),
      ...VARIANTS.map((v) => startChild<ServerReady>(serverFile, [v.kind, v.storage], { core: 0, execArgv })),
    ]);
    const children = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    try {
      const failed = started.find((s) => s.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      const [loader, ...serverChildren] = children as [Child, ...Child<ServerReady>[]];
      const servers: Running[] = VARIANTS.map((variant, i) => ({
        variant,
        child: serverChildren[i]!,
        url: `http://127.0.0.1:${serverChildren[i]!.ready.port}`,
      }));
      const routes = await checkAnswers(servers, log);

      if (settings.warmupSeconds > 0)
        for (const route of routes)
          for (const server of servers)
            await measure(loader, server, route, settings.warmupSeconds, settings.connections);
      const samples = new Map<string, Sample[]>();
      for (let round = 1; round <= settings.rounds; round++) {
        log(`round ${round} of ${settings.rounds}`);
        for (const tier of ["main", "mounts"] as const) {
          for (const route of routes) {
            for (const server of servers.filter((s) => s.variant.tier === tier)) {
              const sample = await measure(loader, server, route, settings.seconds[tier], settings.connections);
              const key = `${server.variant.id}/${route}`;
              samples.set(key, [...(samples.get(key) ?? []), sample]);
              log(
                `${server.variant.label} ${route}: ${fmt(sample.rps)} req/s, p50 ${sample.p50Ms.toFixed(2)} ms, p99 ${sample.p99Ms.toFixed(2)} ms, server cpu ${(sample.serverCpu * 100).toFixed(0)}%`,
              );
            }
          }
        }
      }
      load.push(loadavg()[0]!);
      return report({
        settings,
        storage: STORAGE,
        routes,
        variants: VARIANTS,
        samples,
        load,
        pinned: canPin(),
        missing: (Object.keys(ROUTES) as RouteName[]).filter((r) => !routes.includes(r)),
      });
    } finally {
      await Promise.allSettled(children.map((c) => c.close()));
    }
  },
};
