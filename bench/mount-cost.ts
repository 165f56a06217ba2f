import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { createFlagpost, memoryStorage, type Scope } from "flagpost";
import { createHandler, type HttpOptions, type HttpRequest } from "flagpost/http";
import type { LoadOptions, LoadResult } from "./http-load.js";
import { benchUsers, ROUTES, type ServerKind, type ServerReady } from "./http-workload.js";
import { type Child, startChild } from "./lib/child.js";
import { flagpostRules, makeFlagSet } from "./lib/flag-set.js";
import { floorEvaluator } from "./lib/floor-evaluator.js";
import { silentLogger } from "./lib/silent-logger.js";
import { fmt, median } from "./lib/stats.js";

/**
 * Server CPU per request of each flagpost mount beside its bare framework, and of flagpost's
 * handler called in this process with no HTTP at all. The bare servers do part of that work too
 * (parse the JSON, evaluate, serialise the answer: "floor work", also timed here in process), so
 * flagpost's own work is handler − floor work, and what a mount adds beyond it, the glue, is
 * (mount − bare) − (handler − floor work). CPU time (process.cpuUsage in the server, before and after a
 * fixed number of requests) rather than req/s, so a loaded machine changes the figures little.
 *
 * `tsup --silent --no-dts && tsx --tsconfig bench/tsconfig.run.json bench/mount-cost.ts [seconds] [rounds] [connections]`
 * (the built package, as bench:http). Servers are bench/http-servers.ts's, each in its own process
 * pinned to core 0, loaded by bench/http-load.ts (autocannon, keep-alive, pinned to core 1) with
 * 50 connections (or `[connections]`) for 2 s per run (or `[seconds]`), as bench:http loads them. MOUNT_COST_PROFILE=<dir> runs the servers with `--cpu-prof` into that directory;
 * MOUNT_COST_KINDS=flagpost-node,floor-node measures only those servers. MOUNT_COST_BEFORE=<dir>,
 * another checkout with its package built (`tsup --no-dts` there), adds its flagpost servers to
 * the same interleaved rounds: a before → after comparison that the machine's load moves alike.
 */

const SECONDS = Number(process.argv[2] ?? 2);
const ROUNDS = Number(process.argv[3] ?? 5);
const CONNECTIONS = Number(process.argv[4] ?? 50);
/** Calls of the handler per in-process round. */
const REQUESTS = 20_000;
const MEASURED = ["evaluate", "events", "snapshot"] as const;
type Measured = (typeof MEASURED)[number];

const PAIRS: { mount: string; bare: ServerKind; flagpost: ServerKind }[] = [
  { mount: "toNodeHandler", bare: "floor-node", flagpost: "flagpost-node" },
  { mount: "toFastify", bare: "floor-fastify", flagpost: "flagpost-fastify" },
  { mount: "toExpress", bare: "floor-express", flagpost: "flagpost-express" },
  { mount: "toHono", bare: "floor-hono", flagpost: "flagpost-hono" },
];

const SERVERS = new URL("./http-servers.ts", import.meta.url);
const HTTP_OPTIONS: HttpOptions = { rateLimit: { burst: 1e9, perSecond: 1e9 } };
const bodies = Object.fromEntries(
  MEASURED.map((r) => [r, ROUTES[r].bodies(benchUsers()).map((body) => body ?? "")]),
) as Record<Measured, string[]>;

/** Server CPU µs per answered request of `route` over a run of `SECONDS` at `CONNECTIONS` connections. */
async function serverCpu(load: Child, child: Child<ServerReady>, route: Measured, seconds = SECONDS): Promise<number> {
  await child.call("reset");
  const before = await child.call<number>("cpu");
  const options: LoadOptions = {
    url: `http://127.0.0.1:${child.ready.port}`,
    route,
    key: child.ready.key,
    connections: CONNECTIONS,
    seconds,
  };
  const result = await load.call<LoadResult>("run", options);
  const used = (await child.call<number>("cpu")) - before;
  if (result.wrong > 0) throw new Error(`${route} on port ${child.ready.port}: ${result.wrong} wrong answers`);
  return used / (result.rps * result.seconds);
}

/** A request as a Node mount builds it (headers as Node gives them), its body already in memory. */
function inProcessRequest(route: Measured, body: string, key: string): HttpRequest {
  const bytes = Buffer.from(body);
  const get = ROUTES[route].method === "GET";
  const headers = { host: "127.0.0.1", connection: "keep-alive", authorization: `Bearer ${key}` };
  return {
    method: ROUTES[route].method,
    path: ROUTES[route].path,
    query: new URLSearchParams(),
    headers: get ? headers : { ...headers, "content-type": "application/json", "content-length": String(bytes.length) },
    body: get ? { kind: "none" } : { kind: "stream", read: () => Promise.resolve(bytes) },
    basePath: "",
    remoteAddress: "127.0.0.1",
  };
}

/** CPU µs per request of flagpost's handler alone: no socket, no parser, no response written. */
async function handlerCpu(route: Measured, rounds: number): Promise<number[]> {
  const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
  await fp.ready();
  for (const flag of flagpostRules(makeFlagSet(benchUsers()))) await fp.flags.create(flag);
  const scopes: Scope[] = ["flags:evaluate", "events:write", "flags:read"];
  const { key } = await fp.keys.create({ name: "bench", scopes });
  const handle = createHandler(fp, HTTP_OPTIONS);
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const response = await handle(inProcessRequest(route, bodies[route][i % bodies[route].length]!, key));
      if (response?.status !== ROUTES[route].status) throw new Error(`${route}: ${response?.status}`);
    }
  };
  await run(REQUESTS); // warm-up
  const results: number[] = [];
  for (let r = 0; r < rounds; r++) {
    await fp.events.purgeBefore(new Date(Date.now() + 60_000));
    const before = process.cpuUsage();
    await run(REQUESTS);
    const used = process.cpuUsage(before);
    results.push((used.user + used.system) / REQUESTS);
  }
  await fp.close();
  return results;
}

/**
 * CPU µs per request of what the bare servers' handlers do besides HTTP: decode, parse, evaluate,
 * serialise (nothing for the snapshot: they send bytes serialised at start).
 */
function floorWorkCpu(route: Measured, rounds: number): number[] {
  if (route === "snapshot") return [0];
  const evaluate = floorEvaluator(makeFlagSet(benchUsers()));
  const buffers = bodies[route].map((b) => Buffer.from(b));
  let sink = 0;
  const run = (count: number) => {
    for (let i = 0; i < count; i++) {
      const body = JSON.parse(buffers[i % buffers.length]!.toString("utf8")) as never;
      const answer =
        route === "evaluate" ? { data: evaluate(body) } : { data: { id: randomUUID(), status: "accepted" } };
      sink += JSON.stringify(answer).length;
    }
  };
  run(REQUESTS);
  const results: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const before = process.cpuUsage();
    run(REQUESTS);
    const used = process.cpuUsage(before);
    results.push((used.user + used.system) / REQUESTS);
  }
  if (sink === 0) throw new Error("nothing serialised");
  return results;
}

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

const loadBefore = loadAverage();
const only = process.env.MOUNT_COST_KINDS?.split(",");
const kinds = PAIRS.flatMap((p) => [p.bare, p.flagpost]).filter((kind) => !only || only.includes(kind));
const profileDir = process.env.MOUNT_COST_PROFILE;
const execArgv = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [];
const before = process.env.MOUNT_COST_BEFORE;
// Each bare server, then the mount before and after: neighbours in every round see the same load.
const children = new Map<string, Child<ServerReady>>();
for (const kind of kinds) {
  if (before && kind.startsWith("flagpost-")) {
    const file = new URL(`file://${before}/bench/http-servers.ts`);
    children.set(`${kind} before`, await startChild<ServerReady>(file, [kind], { core: 0, execArgv }));
  }
  children.set(kind, await startChild<ServerReady>(SERVERS, [kind], { core: 0, execArgv }));
}
const samples = new Map<string, number[]>();
const add = (id: string, value: number) => samples.set(id, [...(samples.get(id) ?? []), value]);
const loader = await startChild(new URL("./http-load.ts", import.meta.url), [], { core: 1 });
try {
  for (const child of children.values()) for (const route of MEASURED) await serverCpu(loader, child, route, 1);
  // Interleaved: every server once per round, so a noisy phase of the machine hits all alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const route of MEASURED)
      for (const [kind, child] of children) add(`${kind} ${route}`, await serverCpu(loader, child, route));
    console.error(`round ${round + 1}/${ROUNDS} done, load ${loadAverage()}`);
  }
} finally {
  await Promise.all([loader, ...children.values()].map((c) => c.close()));
}
// One route after the other: CPU time is the process's, so two loops at once would count each other.
const handler = {} as Record<Measured, number>;
for (const route of MEASURED) handler[route] = median(await handlerCpu(route, ROUNDS));
const floorWork = Object.fromEntries(MEASURED.map((r) => [r, median(floorWorkCpu(r, ROUNDS))])) as Record<
  Measured,
  number
>;

const lines = [
  `Server CPU µs per answered request, median of ${ROUNDS} rounds of ${SECONDS} s at ${CONNECTIONS} connections; ` +
    `load average (1/5/15 min) before ${loadBefore}, after ${loadAverage()}.`,
  "",
  `| mount | route | bare framework |${before ? " before: mount | bare ÷ mount |" : ""} flagpost mount | bare ÷ mount (≈ req/s ratio) | flagpost handler in process | floor work in process | glue = (mount − bare) − (handler − floor work) |`,
  `|---|---|---|${before ? "---|---|" : ""}---|---|---|---|---|`,
];
for (const route of MEASURED) {
  for (const pair of PAIRS) {
    if (!children.has(pair.bare) || !children.has(pair.flagpost)) continue;
    const bare = median(samples.get(`${pair.bare} ${route}`)!);
    const mount = median(samples.get(`${pair.flagpost} ${route}`)!);
    const was = samples.get(`${pair.flagpost} before ${route}`);
    const wasCells = was ? ` ${fmt(median(was), 1)} | ${(bare / median(was)).toFixed(2)}× |` : "";
    lines.push(
      `| ${pair.mount} | ${route} | ${fmt(bare, 1)} |${wasCells} ${fmt(mount, 1)} | ${(bare / mount).toFixed(2)}× | ` +
        `${fmt(handler[route], 1)} | ${fmt(floorWork[route], 1)} | ${fmt(mount - bare - (handler[route] - floorWork[route]), 1)} |`,
    );
  }
}
console.log(lines.join("\n"));
