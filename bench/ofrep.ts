import { loadavg } from "node:os";
import { canPin, type Child, startChild } from "./lib/child.js";
import type { BenchPart } from "./lib/part.js";
import { table } from "./lib/report.js";
import { fmt, median } from "./lib/stats.js";
import type { OfrepLoad, OfrepLoadResult } from "./ofrep-load.js";
import {
  BULK_FLAGS,
  BULK_PATH,
  type LoadRequest,
  type OfrepServerReady,
  ofrepUsers,
  requestsFor,
} from "./ofrep-workload.js";

/**
 * `npm run bench -- ofrep` (issue 27, "Done when"): on the node mount, OFREP single evaluation's
 * req/s beside the /v1 evaluate route's (the peer it must reach 90% of), bulk evaluation of 100
 * flags for one context (p99 < 5 ms, one connection, beside a bare node:http floor sending the
 * same bytes), and the bulk 304, whose evaluations are counted (target: none). Servers run in
 * processes pinned to core 0, autocannon in one pinned to core 1; runs are interleaved over
 * rounds so a noisy phase hits every row alike; the tables hold medians over rounds.
 */

interface Settings {
  users: number;
  rounds: number;
  warmupSeconds: number;
  /** Throughput runs (evaluate vs OFREP single), at `connections`. */
  seconds: number;
  connections: number;
  /** Latency runs (bulk, bulk 304), one connection: a client's own wait, not a queue's. */
  latencySeconds: number;
}

const FULL: Settings = { users: 200, rounds: 3, warmupSeconds: 1, seconds: 5, connections: 50, latencySeconds: 3 };
const SMOKE: Settings = { users: 20, rounds: 1, warmupSeconds: 0, seconds: 0.2, connections: 2, latencySeconds: 0.2 };

type RowId = "evaluate" | "single" | "bulk-floor" | "bulk" | "bulk-304";

interface Sample extends OfrepLoadResult {
  /** evaluateCurrent calls during the run per answer (flagpost rows). */
  evaluationsPerAnswer: number | undefined;
}

async function post(url: string, request: LoadRequest, extra: Record<string, string> = {}) {
  const res = await fetch(url + request.path, {
    method: "POST",
    headers: { ...request.headers, ...extra },
    body: request.body,
  });
  const text = await res.text();
  return { status: res.status, etag: res.headers.get("etag"), json: text === "" ? undefined : JSON.parse(text) };
}

/** Before anything is timed: OFREP single answers what /v1 evaluate does, bulk holds 100 flags. */
async function checkAnswers(url: string, requests: ReturnType<typeof requestsFor>): Promise<void> {
  for (let i = 0; i < Math.min(40, requests.single.length); i++) {
    const { json: evaluate } = await post(url, requests.evaluate[i]!);
    const single = await post(url, requests.single[i]!);
    const expected = (evaluate as { data: { enabled: boolean } }).data.enabled;
    if (single.status !== 200 || (single.json as { value: unknown }).value !== expected)
      throw new Error(`OFREP single answered ${JSON.stringify(single.json)}; evaluate ${JSON.stringify(evaluate)}`);
    const bulk = await post(url, requests.bulk[i]!);
    const count = (bulk.json as { flags: unknown[] }).flags.length;
    if (bulk.status !== 200 || count !== BULK_FLAGS) throw new Error(`bulk answered ${bulk.status}, ${count} flags`);
  }
}

/** The bulk requests again, each with the ETag its context gets now: every answer is a 304. */
async function notModified(url: string, bulk: LoadRequest[]): Promise<LoadRequest[]> {
  const out: LoadRequest[] = [];
  for (const request of bulk) {
    const { etag } = await post(url, request);
    const withTag = { ...request, headers: { ...request.headers, "if-none-match": etag! } };
    if ((await post(url, withTag)).status !== 304) throw new Error("a bulk request with its ETag did not answer 304");
    out.push(withTag);
  }
  return out;
}

export const ofrepBench: BenchPart = {
  name: "ofrep",
  title: "OFREP: single evaluation against the evaluate route, bulk of 100 flags, and its 304",
  async run({ smoke, log }) {
    const settings = smoke ? SMOKE : FULL;
    const load = [loadavg()];
    const serverFile = new URL("./ofrep-server.ts", import.meta.url);
    const started = await Promise.allSettled([
      startChild(new URL("./ofrep-load.ts", import.meta.url), [], { core: 1 }),
      startChild<OfrepServerReady>(serverFile, ["flagpost-node", String(settings.users)], { core: 0 }),
      startChild<OfrepServerReady>(serverFile, ["floor-node", String(settings.users)], { core: 0 }),
    ]);
    const children = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    try {
      const failed = started.find((s) => s.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      const [loader, flagpost, floor] = children as [Child, Child<OfrepServerReady>, Child<OfrepServerReady>];
      const urlOf = (c: Child<OfrepServerReady>) => `http://127.0.0.1:${c.ready.port}`;
      const requests = requestsFor(ofrepUsers(settings.users), flagpost.ready.key);
      await checkAnswers(urlOf(flagpost), requests);
      const runs: Record<RowId, { server: Child<OfrepServerReady>; requests: LoadRequest[]; status: number }> = {
        evaluate: { server: flagpost, requests: requests.evaluate, status: 200 },
        single: { server: flagpost, requests: requests.single, status: 200 },
        "bulk-floor": { server: floor, requests: requests.bulk, status: 200 },
        bulk: { server: flagpost, requests: requests.bulk, status: 200 },
        "bulk-304": { server: flagpost, requests: await notModified(urlOf(flagpost), requests.bulk), status: 304 },
      };
      const latency = (id: RowId) => id.startsWith("bulk");
      const measure = async (id: RowId, seconds: number): Promise<Sample> => {
        const { server, requests: list, status } = runs[id];
        const before = server === flagpost ? await flagpost.call<number>("evaluations") : 0;
        const options: OfrepLoad = {
          url: urlOf(server),
          requests: list,
          status,
          connections: latency(id) ? 1 : settings.connections,
          seconds,
        };
        const result = await loader.call<OfrepLoadResult>("run", options);
        if (result.wrong > 0) throw new Error(`${id}: ${result.wrong} answers were errors or not ${status}`);
        const evaluations = server === flagpost ? (await flagpost.call<number>("evaluations")) - before : undefined;
        return {
          ...result,
          evaluationsPerAnswer: evaluations === undefined ? undefined : evaluations / result.answered,
        };
      };
      const ids = Object.keys(runs) as RowId[];
      if (settings.warmupSeconds > 0) for (const id of ids) await measure(id, settings.warmupSeconds);
      const samples = new Map<RowId, Sample[]>();
      for (let round = 1; round <= settings.rounds; round++) {
        for (const id of ids) {
          const sample = await measure(id, latency(id) ? settings.latencySeconds : settings.seconds);
          samples.set(id, [...(samples.get(id) ?? []), sample]);
          log(
            `round ${round} ${id}: ${fmt(sample.rps)} req/s, p50 ${sample.p50Ms.toFixed(2)} ms, p99 ${sample.p99Ms.toFixed(2)} ms`,
          );
        }
      }
      load.push(loadavg());
      return report(settings, samples, load, canPin());
    } finally {
      await Promise.allSettled(children.map((c) => c.close()));
    }
  },
};

const LABELS: Record<RowId, string> = {
  evaluate: "POST /v1/flags/{key}/evaluate (the peer)",
  single: "POST /ofrep/v1/evaluate/flags/{key}",
  "bulk-floor": `bulk, ${BULK_FLAGS} flags: bare node:http sending the same bytes (floor)`,
  bulk: `POST ${BULK_PATH}, ${BULK_FLAGS} flags`,
  "bulk-304": `the same with If-None-Match: 304`,
};

function report(settings: Settings, samples: Map<RowId, Sample[]>, load: number[][], pinned: boolean): string {
  const med = (id: RowId, pick: (s: Sample) => number) => median((samples.get(id) ?? []).map(pick));
  const against: Partial<Record<RowId, RowId>> = { single: "evaluate", bulk: "bulk-floor", "bulk-304": "bulk" };
  const rows = (Object.keys(LABELS) as RowId[]).map((id) => {
    const base = against[id];
    const perAnswer = samples.get(id)?.[0]?.evaluationsPerAnswer;
    return [
      LABELS[id],
      id.startsWith("bulk") ? 1 : settings.connections,
      fmt(med(id, (s) => s.rps)),
      med(id, (s) => s.p50Ms).toFixed(2),
      med(id, (s) => s.p99Ms).toFixed(2),
      base === undefined ? "" : `${(med(id, (s) => s.rps) / med(base, (s) => s.rps)).toFixed(2)}× ${base}`,
      perAnswer === undefined ? "" : fmt(Math.max(...(samples.get(id) ?? []).map((s) => s.evaluationsPerAnswer!)), 2),
    ];
  });
  const perRound = (samples.get("single") ?? []).map((s, i) => (s.rps / samples.get("evaluate")![i]!.rps).toFixed(2));
  const share = med("single", (s) => s.rps) / med("evaluate", (s) => s.rps);
  const bulkP99 = med("bulk", (s) => s.p99Ms);
  const notModified = Math.max(...(samples.get("bulk-304") ?? []).map((s) => s.evaluationsPerAnswer ?? 0));
  const verdict = (met: boolean) => (met ? "met" : "**missed**");
  const avg = (l: number[]) => l.map((v) => v.toFixed(2)).join(", ");
  return [
    table(
      ["request", "connections", "req/s", "p50 ms", "p99 ms", "req/s vs", "evaluations per answer (max over rounds)"],
      rows,
    ),
    "",
    `- OFREP single ≥ 90% of the evaluate route's req/s: ${share.toFixed(2)}× (per round: ${perRound.join(", ")}) — ${verdict(share >= 0.9)}`,
    `- Bulk of ${BULK_FLAGS} flags for one context, p99 < 5 ms: ${bulkP99.toFixed(2)} ms — ${verdict(bulkP99 < 5)}`,
    `- A 304 evaluates no flag: ${fmt(notModified, 2)} evaluations per answer (counted calls of \`fp.flags.evaluateCurrent\` in the server) — ${verdict(notModified === 0)}`,
    "",
    `${settings.rounds} rounds, medians; throughput rows ${settings.seconds} s at ${settings.connections} connections, latency rows ${settings.latencySeconds} s at one connection (a client's own wait, not a queue's). Memory storage, ${settings.users} contexts cycled. Server processes ${pinned ? "pinned to core 0, autocannon to core 1" : "not pinned (taskset unavailable)"}. Load average (1/5/15 min) before: ${avg(load[0]!)}; after: ${avg(load.at(-1)!)}.`,
  ].join("\n");
}
