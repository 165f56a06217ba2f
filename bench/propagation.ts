import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createRemoteFlagClient, type FlagClient } from "flagpost/client";
import { postgresUrl } from "./lib/postgres.js";
import { type Child, startChild } from "./lib/child.js";
import { silentLogger } from "./lib/silent-logger.js";
import type { BenchPart } from "./lib/part.js";
import { table } from "./lib/report.js";
import { fmt, summarize } from "./lib/stats.js";
import { FLAG, userOfChange, wallNow, watchChanges } from "./propagation-watch.js";

/**
 * bench:propagation (issue 14): how fast a flag change made through one process reaches
 * (1) `isEnabled` in a second process on the same PostgreSQL (LISTEN/NOTIFY) and (2) remote
 * clients over the SSE stream, one following the writing process and one the second process;
 * then SSE fan-out: 1,000 stream clients on one process, one change, the delay until each has it.
 * Two flagpost processes (pinned to one core each where possible); the clients run in this one.
 * Without PostgreSQL (the smoke run in `npm test`) the two processes share a SQLite file and
 * notice each other's writes by the revision poll instead.
 */

type Ready = { port: number; key: string };
const SEEN_TIMEOUT_MS = 10_000;

const ms = (value: number) => fmt(value, 1);

async function patch(node: Child<Ready>, body: unknown): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${node.ready.port}/v1/flags/${FLAG}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${node.ready.key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`PATCH answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

async function waitUntil(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Changes one at a time through A; per change, when each observer saw it. */
async function propagation(
  a: Child<Ready>,
  b: Child<Ready>,
  counts: { warmup: number; changes: number },
  log: (line: string) => void,
) {
  const remotes: FlagClient[] = [a, b].map((node) =>
    createRemoteFlagClient({
      url: `http://127.0.0.1:${node.ready.port}`,
      apiKey: node.ready.key,
      logger: silentLogger,
      pollIntervalMs: 60_000, // only the stream can bring a change in time
    }),
  );
  try {
    await Promise.all(remotes.map((r) => r.ready()));
    log("remote clients ready");
    await waitUntil(
      async () => (await a.call<number>("streams")) === 1 && (await b.call<number>("streams")) === 1,
      "both remote clients stream",
    );
    const watches = remotes.map((r) => watchChanges(r));
    const samples = { patch: [] as number[], process: [] as number[], sseA: [] as number[], sseB: [] as number[] };
    /** The same, counted from the PATCH's answer: what propagation adds to the write itself. */
    const after = { process: [] as number[], sseA: [] as number[], sseB: [] as number[] };
    // The first changes warm up (JIT, connections, statement plans) and are not counted.
    for (let i = 1; i <= counts.warmup + counts.changes; i++) {
      const started = wallNow();
      const seen = Promise.all([
        b.call<number>("seenAt", i, SEEN_TIMEOUT_MS),
        watches[0]!.seenAt(i, SEEN_TIMEOUT_MS),
        watches[1]!.seenAt(i, SEEN_TIMEOUT_MS),
      ]);
      await patch(a, { enabled: true, rules: [{ type: "users", userIds: [userOfChange(i)] }] });
      const answered = wallNow();
      const [inB, sseA, sseB] = await seen;
      if (i > counts.warmup) {
        samples.patch.push(answered - started);
        samples.process.push(inB - started);
        samples.sseA.push(sseA - started);
        samples.sseB.push(sseB - started);
        after.process.push(inB - answered);
        after.sseA.push(sseA - answered);
        after.sseB.push(sseB - answered);
      }
      if (i % 50 === 0) log(`${i} of ${counts.warmup + counts.changes} changes (the first ${counts.warmup} warm up)`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { samples, after };
  } finally {
    await Promise.all(remotes.map((r) => r.close()));
  }
}

/** One raw SSE connection that notes when a marker arrives. */
function streamClient(port: number, key: string) {
  let tail = "";
  let wanted: { marker: string; resolve: (at: number) => void } | undefined;
  let opened!: () => void;
  const snapshot = new Promise<void>((resolve) => (opened = resolve));
  const req = request({
    host: "127.0.0.1",
    port,
    path: "/v1/flags/_stream",
    agent: false,
    headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" },
  });
  req.on("response", (res) => {
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      const text = tail + chunk;
      if (text.includes("event: snapshot")) opened();
      if (wanted && text.includes(wanted.marker)) {
        wanted.resolve(wallNow());
        wanted = undefined;
      }
      tail = text.slice(-64);
    });
  });
  req.on("error", () => undefined);
  req.end();
  return {
    snapshot,
    expect(marker: string): Promise<number> {
      return new Promise((resolve) => (wanted = { marker, resolve }));
    },
    close: () => req.destroy(),
  };
}

async function fanOut(a: Child<Ready>, clients: number, rounds: number, log: (line: string) => void) {
  const connected: ReturnType<typeof streamClient>[] = [];
  try {
    for (let i = 0; i < clients; i += 100) {
      const batch = Array.from({ length: Math.min(100, clients - i) }, () => streamClient(a.ready.port, a.ready.key));
      await Promise.all(batch.map((c) => c.snapshot));
      connected.push(...batch);
    }
    log(`${connected.length} stream clients connected (server counts ${await a.call<number>("streams")})`);
    const perRound: number[][] = [];
    const patches: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const marker = `fan-out-${round}-${randomBytes(3).toString("hex")}`;
      const arrivals = connected.map((c) => c.expect(marker));
      const started = wallNow();
      await patch(a, { description: marker });
      patches.push(wallNow() - started);
      const times = await Promise.race([
        Promise.all(arrivals),
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`round ${round}: not every client got the change in 30 s`)),
            30_000,
          ).unref(),
        ),
      ]);
      perRound.push(times.map((t) => t - started));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { perRound, patches };
  } finally {
    for (const c of connected) c.close();
  }
}

export const propagationBench: BenchPart = {
  name: "propagation",
  title: "Flag propagation: a PATCH → another process's isEnabled and remote clients over SSE; SSE fan-out",
  async run({ smoke, log }) {
    const changes = smoke ? 5 : 200;
    const clients = smoke ? 20 : 1_000;
    const rounds = smoke ? 2 : 10;
    const postgres = await postgresUrl(smoke);
    const schema = `flagpost_bench_${randomBytes(6).toString("hex")}`;
    const dir = postgres.url ? undefined : mkdtempSync(join(tmpdir(), "flagpost-bench-propagation-"));
    const admin = postgres.url ? new pg.Client({ connectionString: postgres.url }) : undefined;
    if (admin) {
      await admin.connect();
      await admin.query(`create schema "${schema}"`);
    }
    const args = postgres.url ? ["pg", postgres.url, schema] : ["sqlite", join(dir!, "flagpost.db")];
    const node = new URL("./propagation-node.ts", import.meta.url);
    const children: Child<Ready>[] = [];
    try {
      log("starting process A");
      children.push(await startChild<Ready>(node, args, { core: 0 })); // migrates first
      log("starting process B");
      children.push(await startChild<Ready>(node, args, { core: 1 }));
      const [a, b] = children as [Child<Ready>, Child<Ready>];
      const created = await fetch(`http://127.0.0.1:${a.ready.port}/v1/flags`, {
        method: "POST",
        headers: { authorization: `Bearer ${a.ready.key}`, "content-type": "application/json" },
        // Off until the first change: on with no rules, every user would count as every change seen.
        body: JSON.stringify({ key: FLAG, enabled: false }),
      });
      if (created.status !== 201) throw new Error(`creating the flag answered ${created.status}`);
      await waitUntil(() => b.call<boolean>("isEnabled", 0).then(() => true), "process B is up");

      log("both processes ready");
      const load = [loadavg()[0]!];
      const { samples, after } = await propagation(a, b, { warmup: smoke ? 1 : 20, changes }, log);
      const { perRound, patches } = await fanOut(a, clients, rounds, log);
      const storage = postgres.url ? "PostgreSQL (LISTEN/NOTIFY)" : "SQLite file (revision poll every 50 ms)";
      load.push(loadavg()[0]!);
      const row = (label: string, values: number[], fromAnswer?: number[]) => {
        const s = summarize(values);
        const a = fromAnswer && summarize(fromAnswer);
        return [label, s.n, ms(s.p50), ms(s.p99), ms(Math.max(...values)), a ? ms(a.p50) : "—", a ? ms(a.p99) : "—"];
      };
      const rows = [
        row("PATCH answered (A)", samples.patch),
        row("`isEnabled` in process B", samples.process, after.process),
        row("remote client over SSE from A (the writer)", samples.sseA, after.sseA),
        row("remote client over SSE from B (another process)", samples.sseB, after.sseB),
      ];
      const all = perRound.flat();
      const fan = summarize(all);
      const roundP99 = perRound.map((times) => summarize(times).p99);
      const target = summarize(samples.process).p99 < 100 && summarize(samples.sseB).p99 < 100;
      return [
        `Storage: ${storage}${postgres.why ? ` — ${postgres.why}` : ""}. ${changes} changes, one at a time, each a PATCH through process A; times from just before the PATCH is sent, in ms.`,
        "",
        table(["seen by", "changes", "p50 ms", "p99 ms", "max ms", "after the answer: p50 ms", "p99 ms"], rows),
        "",
        `Target p99 < 100 ms for the second process and the remote client: ${target ? "met" : "MISSED"} (counted from before the PATCH, so the write's own commit is included; the last two columns count from its answer). Load average (1 min) ${load.map((l) => l.toFixed(1)).join(" → ")} on ${cpus().length} cores.`,
        "",
        `SSE fan-out: ${clients} stream clients on process A (raw node:http connections in the benchmark process), ${rounds} changes; delay from the PATCH to each client receiving the event, in ms.`,
        "",
        table(
          ["clients × changes", "p50 ms", "p99 ms", "max ms", "p99 per change (best … worst)", "PATCH answered p50 ms"],
          [
            [
              `${clients} × ${rounds}`,
              ms(fan.p50),
              ms(fan.p99),
              ms(Math.max(...all)),
              `${ms(Math.min(...roundP99))} … ${ms(Math.max(...roundP99))}`,
              ms(summarize(patches).p50),
            ],
          ],
        ),
      ].join("\n");
    } finally {
      await Promise.allSettled(children.map((c) => c.close()));
      if (admin) {
        await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => undefined);
        await admin.end();
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  },
};
