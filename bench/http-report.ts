import { ROUTES, type RouteName, type ServerKind } from "./http-workload.js";
import type { LoadResult } from "./http-load.js";
import { table } from "./lib/report.js";
import { fmt, median } from "./lib/stats.js";
import { MISSED_NOTE, PROFILE_NOTE } from "./http-notes.js";

/** bench:http's tables and the issue 17 target lines, from the samples bench/http.ts took. */

export interface Variant {
  id: string;
  label: string;
  kind: ServerKind;
  storage: "memory" | "sqlite";
  /** The node:http handler and its floor get the long runs; the framework mounts shorter ones. */
  tier: "main" | "mounts";
}

export interface Settings {
  connections: number;
  warmupSeconds: number;
  rounds: number;
  seconds: Record<Variant["tier"], number>;
}

export interface Sample extends LoadResult {
  serverCpu: number;
}

/** Each flagpost mount and the bare framework it is held to. */
const PAIRS: { mount: string; bare: string; name: string }[] = [
  { mount: "flagpost-node", bare: "floor-node", name: "toNodeHandler vs bare node:http" },
  { mount: "flagpost-express", bare: "floor-express", name: "toExpress vs bare Express 5" },
  { mount: "flagpost-fastify", bare: "floor-fastify", name: "toFastify vs bare Fastify" },
  { mount: "flagpost-hono", bare: "floor-hono", name: "toHono vs bare Hono" },
];

/** Issue 17 target 1: share of the bare framework's req/s each mount must reach, per route. */
const TARGETS: Partial<Record<RouteName, number>> = { evaluate: 0.85, events: 0.75 };

/**
 * Issue 30's split of a mount's cost: the CPU per request it adds over its bare framework is
 * flagpost's own work (measured under node:http) plus the mount's glue; with no glue at all the
 * mount would still cost bare / (bare + own) of its framework's CPU per request.
 */
function glueNote(mount: string, bare: number, mounted: number, own: number): string {
  if (mount === "flagpost-node" || !(own > 0)) return "";
  const us = (seconds: number) => fmt(seconds * 1e6, 1);
  const added = mounted - bare;
  const glue = added - own;
  const glueText =
    glue >= 0 ? `glue ${us(glue)} µs` : `no glue (the mount skips ${us(-glue)} µs of work the bare app does)`;
  return `; adds ${us(added)} µs/request over the bare framework: flagpost's own work ${us(own)} µs (toNodeHandler over bare node:http) + ${glueText}; with no glue the best CPU share is ${((bare / (bare + own)) * 100).toFixed(0)}%`;
}

function routeLabel(route: RouteName): string {
  return route === "evaluate" ? "POST /v1/flags/{key}/evaluate" : `${ROUTES[route].method} ${ROUTES[route].path}`;
}

export function report(r: {
  settings: Settings;
  storage: Variant["storage"];
  routes: RouteName[];
  variants: Variant[];
  samples: Map<string, Sample[]>;
  load: number[];
  pinned: boolean;
  missing: RouteName[];
}): string {
  const { settings } = r;
  const med = (id: string, route: RouteName, pick: (s: Sample) => number) =>
    median((r.samples.get(`${id}/${route}`) ?? []).map(pick));
  const rows: (string | number)[][] = [];
  const lines: string[] = [];
  for (const route of r.routes) {
    const floor = med("floor-node", route, (s) => s.rps);
    const floorCpu = med("floor-node", route, (s) => s.serverCpu / s.rps);
    for (const variant of r.variants) {
      const rps = med(variant.id, route, (s) => s.rps);
      const cpuPerReq = med(variant.id, route, (s) => s.serverCpu / s.rps);
      const loadBound =
        med(variant.id, route, (s) => s.loadCpu) >= 0.9 && med(variant.id, route, (s) => s.serverCpu) < 0.9;
      rows.push([
        routeLabel(route),
        variant.label,
        `${fmt(rps)}${loadBound ? " (load-bound)" : ""}`,
        med(variant.id, route, (s) => s.p50Ms).toFixed(2),
        med(variant.id, route, (s) => s.p99Ms).toFixed(2),
        `${(rps / floor).toFixed(2)}×`,
        fmt(cpuPerReq * 1e6, 1),
        `${(floorCpu / cpuPerReq).toFixed(2)}×`,
        `${(med(variant.id, route, (s) => s.serverCpu) * 100).toFixed(0)}% / ${(med(variant.id, route, (s) => s.loadCpu) * 100).toFixed(0)}%`,
        `${r.samples.get(`${variant.id}/${route}`)?.length ?? 0} × ${settings.seconds[variant.tier]} s`,
      ]);
    }
    const withMetrics =
      med("flagpost-node", route, (s) => s.rps) / med("flagpost-node-no-metrics", route, (s) => s.rps);
    const cpuWith = med("flagpost-node", route, (s) => s.serverCpu / s.rps);
    const cpuWithout = med("flagpost-node-no-metrics", route, (s) => s.serverCpu / s.rps);
    if (route === "evaluate")
      lines.push(
        `- evaluate, toNodeHandler with metrics on (the default: request series counted) vs off (\`metrics: false\`): ` +
          `${(withMetrics * 100).toFixed(1)}% of its req/s (target: under 3% lost, ≥ 97%: ${withMetrics >= 0.97 ? "met" : "MISSED"}); ` +
          `server CPU per request ${fmt(cpuWith * 1e6, 1)} µs on, ${fmt(cpuWithout * 1e6, 1)} µs off`,
      );
    const target = TARGETS[route];
    const cpuOf = (id: string) => med(id, route, (s) => s.serverCpu / s.rps);
    // flagpost's own work per request: what its node:http handler adds over the bare node:http floor.
    const own = cpuOf("flagpost-node") - cpuOf("floor-node");
    for (const pair of PAIRS) {
      const rps = med(pair.mount, route, (s) => s.rps) / med(pair.bare, route, (s) => s.rps);
      const cpu = cpuOf(pair.bare) / cpuOf(pair.mount);
      const verdict = target === undefined ? "" : ` (target ≥ ${target * 100}%: ${rps >= target ? "met" : "MISSED"})`;
      lines.push(
        `- ${route}, ${pair.name}: ${(rps * 100).toFixed(0)}% of its req/s${verdict}; CPU per request ${(cpu * 100).toFixed(0)}% of flagpost's${glueNote(pair.mount, cpuOf(pair.bare), cpuOf(pair.mount), own)}`,
      );
    }
  }
  return [
    `${settings.connections} connections from autocannon on 127.0.0.1; ` +
      (r.pinned
        ? "each server in its own process pinned to core 0, autocannon in a process pinned to core 1"
        : "NOT pinned (taskset unavailable or one core)") +
      `. Runs interleaved over ${settings.rounds} rounds after a ${settings.warmupSeconds} s warm-up per server and route; medians over rounds. ` +
      `The node:http handler and its floor get ${settings.seconds.main} s runs, the frameworks (bare and mounted) ${settings.seconds.mounts} s runs. ` +
      `flagpost runs on ${r.storage === "sqlite" ? "a SQLite file (WAL, synchronous=FULL)" : "memory storage"} with a real API key (scopes flags:evaluate, events:write, flags:read) and a rate limit of 10⁹/s that is computed on every request but never reached; the events a run stored are purged before the next run. ` +
      `The snapshot route is polled without If-None-Match (every answer a 200 with the 20 flags, identity coding); the floors answer a body serialised once at start. ` +
      `Load average (1 min) at start and end: ${r.load.map((l) => l.toFixed(2)).join(" → ")}.`,
    "",
    table(
      [
        "route",
        "server",
        "req/s",
        "p50 ms",
        "p99 ms",
        "req/s vs node:http floor",
        "server CPU µs/req",
        "floor CPU / this",
        "CPU server / autocannon",
        "runs",
      ],
      rows,
    ),
    "",
    ...lines,
    ...r.missing.map(
      (route) =>
        `- ${ROUTES[route].method} ${ROUTES[route].path}: not measured, flagpost does not serve it on this branch yet (the part picks it up by itself once it does)`,
    ),
    "- CPU server / autocannon: each process's CPU time over the run's wall time (100% = its whole core). Near 100% for the server, its core was the limit; near 100% for autocannon with the server below, the load generator was (marked load-bound: that row's req/s is a lower bound, and ratios against it flatter the other rows). Well below 100% for both, other processes on the machine took the cores.",
    "- server CPU µs/req: the server process's CPU time per answered request, a cost measure that other processes on the machine move less than req/s; the column after it is the node:http floor's cost over this row's.",
    "- Each mount is held to its own bare framework (the lines above the notes): the bare rows answer the same JSON with the same hand-written evaluator through the framework's own routing and body parsing, so the gap between a pair is what flagpost adds inside that framework.",
    "- Servers run from the TypeScript sources under tsx (so do the floors); tsx's transform adds a small cost per closure created that the published build does not have.",
    ...(lines.some((line) => line.includes("MISSED")) ? [MISSED_NOTE] : []),
    "",
    PROFILE_NOTE,
  ].join("\n");
}
