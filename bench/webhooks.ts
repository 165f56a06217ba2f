import { loadavg } from "node:os";
import { canPin, type Child, startChild } from "./lib/child.js";
import type { BenchPart } from "./lib/part.js";
import { postgresUrl } from "./lib/postgres.js";
import { table } from "./lib/report.js";
import { fmt, median } from "./lib/stats.js";
import type { Setup } from "./webhooks-sender.js";

/**
 * `npm run bench:webhooks`: outbound webhook deliveries to a local receiver. Throughput: changes
 * stored while the worker is stopped, then the worker started, timed until the receiver has them
 * all, beside a bare `fetch` loop POSTing bodies of the same size to the same receiver (the
 * floor). Latency: one change at a time, paced, with the worker running; from each change's
 * `created_at` to its arrival. The sending side runs pinned to core 0, the receiver to core 1.
 */

type Receiver = Child<{ port: number }>;
interface Delays {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

const LATENCY_INTERVAL_MS = 20;

async function throughput(sender: Child, receiver: Receiver, setup: Setup | "floor", count: number): Promise<number> {
  await receiver.call("reset");
  let startedAt: number;
  if (setup === "floor") startedAt = await sender.call<number>("floor", receiver.ready.port, count);
  else {
    await sender.call("prepare", setup);
    await sender.call("store", count);
    startedAt = await sender.call<number>("drain");
  }
  const lastAt = await receiver.call<number>("waitFor", count);
  const stats = await receiver.call<{ received: number; duplicates: number }>("stats");
  if (stats.received !== count || stats.duplicates > 0)
    throw new Error(`webhooks bench: the receiver got ${JSON.stringify(stats)} for ${count} deliveries`);
  if (setup !== "floor") {
    const statuses = await sender.call<Record<string, number>>("finish", count);
    if (statuses.success !== count) throw new Error(`webhooks bench: statuses afterwards ${JSON.stringify(statuses)}`);
  }
  return count / ((lastAt - startedAt) / 1000);
}

async function latency(sender: Child, receiver: Receiver, setup: Setup, count: number): Promise<Delays> {
  await sender.call("prepare", setup);
  await receiver.call("reset");
  await sender.call("paced", count, LATENCY_INTERVAL_MS);
  await receiver.call("waitFor", count);
  const delays = await receiver.call<Delays>("delays");
  const statuses = await sender.call<Record<string, number>>("finish", count);
  if (statuses.success !== count) throw new Error(`webhooks bench: statuses afterwards ${JSON.stringify(statuses)}`);
  return delays;
}

export const webhooksBench: BenchPart = {
  name: "webhooks",
  title: "Webhooks: change → stored delivery → worker → local receiver, against a bare fetch loop",
  async run({ smoke, log }) {
    const count = smoke ? 30 : 2_000;
    const paced = smoke ? 10 : 300;
    const rounds = smoke ? 1 : 3;
    const load = [loadavg()[0]!];
    const postgres = await postgresUrl(smoke);
    const started = await Promise.allSettled([
      startChild<{ port: number }>(new URL("./webhooks-receiver.ts", import.meta.url), [], { core: 1 }),
      startChild(new URL("./webhooks-sender.ts", import.meta.url), [], { core: 0 }),
    ]);
    const children = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    try {
      const failed = started.find((s) => s.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      const [receiver, sender] = children as [Receiver, Child];
      const port = receiver.ready.port;
      const engines: { id: string; label: string; setup: Setup }[] = [
        { id: "sqlite", label: "SQLite", setup: { engine: "sqlite", port } },
      ];
      if (postgres.url)
        engines.push({ id: "postgres", label: "PostgreSQL", setup: { engine: "postgres", pgUrl: postgres.url, port } });
      // Warm-up: JIT, connections, the receiver.
      await throughput(sender, receiver, "floor", Math.min(count, 200));
      for (const e of engines) await throughput(sender, receiver, e.setup, Math.min(count, 200));
      const rates = new Map<string, number[]>();
      const delays = new Map<string, Delays[]>();
      const add = <T>(map: Map<string, T[]>, id: string, value: T) => map.set(id, [...(map.get(id) ?? []), value]);
      for (let round = 1; round <= rounds; round++) {
        log(`round ${round} of ${rounds}`);
        const floor = await throughput(sender, receiver, "floor", count);
        add(rates, "floor", floor);
        log(`bare fetch: ${fmt(floor)} deliveries/s`);
        for (const e of engines) {
          const rate = await throughput(sender, receiver, e.setup, count);
          add(rates, e.id, rate);
          const d = await latency(sender, receiver, e.setup, paced);
          add(delays, e.id, d);
          log(
            `flagpost on ${e.label}: ${fmt(rate)} deliveries/s; change → receiver p50 ${d.p50.toFixed(1)} ms, p99 ${d.p99.toFixed(1)} ms`,
          );
        }
      }
      load.push(loadavg()[0]!);
      return report({ engines, rates, delays, count, paced, rounds, load, pgWhy: postgres.why });
    } finally {
      await Promise.allSettled(children.map((c) => c.close()));
    }
  },
};

function report(r: {
  engines: { id: string; label: string }[];
  rates: Map<string, number[]>;
  delays: Map<string, Delays[]>;
  count: number;
  paced: number;
  rounds: number;
  load: number[];
  pgWhy: string | undefined;
}): string {
  const floor = median(r.rates.get("floor") ?? []);
  const d = (id: string, pick: (x: Delays) => number) => median((r.delays.get(id) ?? []).map(pick));
  const rows = [
    ["bare fetch loop (floor)", "—", fmt(floor), "1.00×", "—", "—", "—"],
    ...r.engines.map((e) => {
      const rate = median(r.rates.get(e.id) ?? []);
      return [
        "flagpost webhooks",
        e.label,
        fmt(rate),
        `${(rate / floor).toFixed(2)}×`,
        d(e.id, (x) => x.p50).toFixed(1),
        d(e.id, (x) => x.p99).toFixed(1),
        d(e.id, (x) => x.max).toFixed(1),
      ];
    }),
  ];
  const targets = r.engines.flatMap((e) => {
    const share = median(r.rates.get(e.id) ?? []) / floor;
    const p99 = d(e.id, (x) => x.p99);
    return [
      `- ${e.label}: ${(share * 100).toFixed(0)}% of the floor (target ≥ 50%: ${share >= 0.5 ? "met" : "MISSED"}); change → receiver p99 ${p99.toFixed(1)} ms (target < 250 ms: ${p99 < 250 ? "met" : "MISSED"})`,
    ];
  });
  return [
    `Throughput: ${fmt(r.count)} flag changes stored with the worker stopped, then the worker started (concurrency 10, keep-alive connections), timed from the start to the receiver's last arrival; the floor is a bare \`fetch\` loop with 10 concurrent POSTs of a body of the same shape to the same receiver. ` +
      `Latency: ${fmt(r.paced)} changes, one every ${LATENCY_INTERVAL_MS} ms, with the worker running; from each change's \`created_at\` to its arrival at the receiver (no retries: the receiver answers 200). ` +
      `SQLite: a fresh file opened as \`flagpost serve\` opens it (WAL, synchronous=FULL); PostgreSQL: a fresh schema. ` +
      (canPin() ? "Sender pinned to core 0, receiver to core 1. " : "NOT pinned (taskset unavailable or one core). ") +
      `${r.rounds} interleaved rounds after a warm-up; medians. Every run checks that each delivery arrived once and is stored as \`success\`. ` +
      `Load average (1 min) at start and end: ${r.load.map((l) => l.toFixed(2)).join(" → ")}.`,
    "",
    table(["system", "storage", "deliveries/s", "vs floor", "change → receiver p50 ms", "p99 ms", "max ms"], rows),
    "",
    ...targets,
    ...(r.pgWhy ? [`- PostgreSQL: not measured, ${r.pgWhy}`] : []),
  ].join("\n");
}
