import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { LoadOptions, LoadResult } from "./http-load.js";
import { benchUsers, type LoadRouteName } from "./http-workload.js";
import { serveArgs } from "./lib/built-package.js";
import { type Child, startChild } from "./lib/child.js";
import { flagpostRules, makeFlagSet } from "./lib/flag-set.js";
import type { BenchPart } from "./lib/part.js";
import { postgresUrl } from "./lib/postgres.js";
import { table } from "./lib/report.js";
import { fmt } from "./lib/stats.js";

/**
 * `npm run bench:scaling` (docs/scaling.md): 1, 2 and 3 `flagpost serve` processes on one
 * PostgreSQL database of their own, under one autocannon process whose 50 connections are split
 * evenly between them, for evaluate, the flag snapshot, one event and one email (send: accepted
 * into the outbox, then written by the processes' workers to .eml files), counting the PostgreSQL
 * transactions per request. Nothing is pinned: the processes share the machine's cores with PostgreSQL and the load generator, which
 * is the question (what N processes buy on this machine). Request lines and the rate limit are
 * off (FLAGPOST_LOG_REQUESTS=off, FLAGPOST_RATE_LIMIT=off). Bounded: one run per N and route.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const KEY = `bench-scaling-${randomBytes(12).toString("hex")}`;
/** Emails last: their workers go on sending after the run, and the part waits for them to finish. */
const ROUTES: LoadRouteName[] = ["evaluate", "snapshot", "events", "emails"];
const LABELS: Record<LoadRouteName, string> = {
  evaluate: "POST /v1/flags/{key}/evaluate",
  snapshot: "GET /v1/flags/_snapshot",
  events: "POST /v1/events",
  emails: "POST /v1/emails (send)",
};
/** How long the part waits for the workers to send what a run accepted. */
const DRAIN_LIMIT_MS = 120_000;

interface Serve {
  child: ChildProcess;
  url: string;
}

async function startServe(db: string, outbox: string): Promise<Serve> {
  const child = spawn(process.execPath, serveArgs(), {
    cwd: ROOT,
    env: {
      ...process.env,
      FLAGPOST_DB: db,
      PORT: "0",
      FLAGPOST_API_KEY: KEY,
      FLAGPOST_LOG_REQUESTS: "off",
      FLAGPOST_RATE_LIMIT: "off",
      FLAGPOST_OUTBOX_DIR: outbox, // emails are "sent" as .eml files: no SMTP server in this part
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let seen = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      seen += d.toString();
      const line = seen.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("exit", (code) => reject(new Error(`flagpost serve exited (${code}) before listening:\n${seen}`)));
  });
  child.stdout!.resume();
  return { child, url };
}

async function stopServe(serve: Serve): Promise<void> {
  if (serve.child.exitCode !== null) return;
  serve.child.kill("SIGTERM");
  await once(serve.child, "exit");
}

interface Row {
  n: number;
  route: LoadRouteName;
  total: number;
  perProcess: number[];
  loadCpu: number;
  load: number;
  /** PostgreSQL transactions in the database during the run, per answered request. */
  txPerRequest: number;
  /** The same, less what the processes do while idle over as long (workers' polls, renewals). */
  netTxPerRequest: number;
}

/**
 * Transactions ended in `database` so far. A backend reports its counts when it goes idle, at
 * the latest 10 s later (PostgreSQL 15+), so the read waits that long first.
 */
async function commits(admin: pg.Client, database: string, smoke: boolean): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, smoke ? 100 : 11_000));
  await admin.query("select pg_stat_clear_snapshot()");
  const { rows } = await admin.query<{ n: string }>(
    "select xact_commit + xact_rollback as n from pg_stat_database where datname = $1",
    [database],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Transactions the processes make per second with no request at all (their background work). */
async function idleRate(admin: pg.Client, database: string, smoke: boolean): Promise<number> {
  if (smoke) return 0;
  const before = await commits(admin, database, false);
  const started = performance.now();
  const after = await commits(admin, database, false);
  return (after - before) / ((performance.now() - started) / 1000);
}

async function measure(
  loader: Child,
  serves: Serve[],
  route: LoadRouteName,
  seconds: number,
  admin: pg.Client,
  database: string,
  smoke: boolean,
  idle = 0,
): Promise<Row> {
  const connections = Math.ceil(50 / serves.length);
  const before = await commits(admin, database, smoke);
  const started = performance.now();
  const results = await Promise.all(
    serves.map((s) => {
      const options: LoadOptions = { url: s.url, route, key: KEY, connections, seconds };
      return loader.call<LoadResult>("run", options);
    }),
  );
  const after = await commits(admin, database, smoke);
  const window = (performance.now() - started) / 1000;
  const wrong = results.reduce((sum, r) => sum + r.wrong, 0);
  if (wrong > 0) throw new Error(`${serves.length} processes, ${route}: ${wrong} wrong answers`);
  const total = results.reduce((sum, r) => sum + r.rps, 0);
  return {
    n: serves.length,
    route,
    total,
    txPerRequest: (after - before) / (total * seconds),
    netTxPerRequest: Math.max(0, after - before - idle * window) / (total * seconds),
    perProcess: results.map((r) => r.rps),
    // autocannon instances share the loader process: its CPU is counted once per instance.
    loadCpu: results[0]!.loadCpu,
    load: loadavg()[0]!,
  };
}

interface Drain {
  n: number;
  accepted: number;
  /** From the first email accepted to the last one sent, by the times stored with them. */
  seconds: number;
  /** From the last email accepted to the last one sent. */
  lagSeconds: number;
}

/**
 * Waits until every email the processes accepted is sent (none queued or sending), at most
 * DRAIN_LIMIT_MS, then reads from the stored times how long sending took, and empties the outbox
 * for the next run. (The run itself is framed by the 11 s waits of `commits`, so wall time here
 * would say nothing.)
 */
async function drain(db: string, n: number): Promise<Drain> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    const deadline = performance.now() + DRAIN_LIMIT_MS;
    for (;;) {
      const { rows } = await client.query<{ n: string }>(
        "select count(*) as n from flagpost_emails where status in ('queued', 'sending')",
      );
      const pending = Number(rows[0]!.n);
      if (pending === 0) break;
      if (performance.now() > deadline)
        throw new Error(`${n} process(es): ${pending} emails still unsent after ${DRAIN_LIMIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { rows } = await client.query<{ n: string; first: string; last_accepted: string; last_sent: string }>(
      `select count(*) as n, min(created_at) as first, max(created_at) as last_accepted,
        max(coalesce(delivered_at, sent_at)) as last_sent from flagpost_emails`,
    );
    const row = rows[0]!;
    await client.query("delete from flagpost_emails"); // the next process count starts from an empty outbox
    return {
      n,
      accepted: Number(row.n),
      seconds: (Number(row.last_sent) - Number(row.first)) / 1000,
      lagSeconds: (Number(row.last_sent) - Number(row.last_accepted)) / 1000,
    };
  } finally {
    await client.end();
  }
}

export const scalingBench: BenchPart = {
  name: "scaling",
  title: "Scaling: 1, 2 and 3 `flagpost serve` processes on one PostgreSQL",
  async run({ smoke, log }) {
    const { url, why } = await postgresUrl(smoke);
    if (!url) return `| not measured |\n| --- |\n| ${why} |`;
    const counts = smoke ? [1] : [1, 2, 3];
    const seconds = smoke ? 0.3 : 5;
    const name = `flagpost_scaling_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    const parsed = new URL(url);
    parsed.pathname = `/${name}`;
    const db = parsed.toString();
    const outbox = join(tmpdir(), name);
    const serves: Serve[] = [];
    const loader = await startChild(new URL("./http-load.ts", import.meta.url));
    const rows: Row[] = [];
    const drains: Drain[] = [];
    const startLoad = loadavg()[0]!;
    try {
      for (const n of counts) {
        while (serves.length < n) serves.push(await startServe(db, outbox)); // one at a time: migrations, then the key
        if (n === 1) {
          for (const flag of flagpostRules(makeFlagSet(benchUsers()))) {
            const response = await fetch(`${serves[0]!.url}/v1/flags`, {
              method: "POST",
              headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
              body: JSON.stringify(flag),
            });
            if (response.status !== 201) throw new Error(`creating ${flag.key}: ${response.status}`);
          }
        }
        const idle = await idleRate(admin, name, smoke);
        log(`${n} process(es) idle: ${idle.toFixed(1)} transactions/s`);
        for (const route of ROUTES) {
          if (route === "emails" && !smoke) {
            await measure(loader, serves, route, 1, admin, name, true); // warm-up, then an empty outbox
            await drain(db, n);
          } else if (!smoke) await measure(loader, serves, route, 1, admin, name, true); // warm-up
          const row = await measure(loader, serves, route, seconds, admin, name, smoke, idle);
          rows.push(row);
          log(`${n} process(es) ${route}: ${fmt(row.total)} req/s (load ${row.load.toFixed(2)})`);
          if (route === "emails") {
            const drained = await drain(db, n);
            drains.push(drained);
            log(`${n} process(es): ${drained.accepted} emails sent in ${drained.seconds.toFixed(1)} s`);
          }
        }
      }
    } finally {
      await Promise.allSettled(serves.map(stopServe));
      await loader.close();
      await admin.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
      await admin.end();
      rmSync(outbox, { recursive: true, force: true });
    }
    const base = new Map(rows.filter((r) => r.n === 1).map((r) => [r.route, r.total]));
    return [
      `One PostgreSQL database of its own; ${counts.join(", ")} \`flagpost serve\` processes (from the sources under tsx, request lines and rate limit off), none pinned; one autocannon process splitting 50 connections between them; ${seconds} s per run after a 1 s warm-up. Load average (1 min) at start ${startLoad.toFixed(2)}; at each row's end in the table.`,
      "",
      table(
        [
          "route",
          "processes",
          "req/s (all)",
          "vs 1 process",
          "req/s per process",
          "PostgreSQL transactions / request",
          "the same, less idle background",
          "autocannon CPU",
          "load avg",
        ],
        rows.map((r) => [
          LABELS[r.route],
          r.n,
          fmt(r.total),
          `${(r.total / base.get(r.route)!).toFixed(2)}×`,
          r.perProcess.map((x) => fmt(x)).join(" / "),
          r.txPerRequest.toFixed(4),
          r.netTxPerRequest.toFixed(4),
          `${(r.loadCpu * 100).toFixed(0)}%`,
          r.load.toFixed(2),
        ]),
      ),
      "",
      "- PostgreSQL transactions / request: commits and rollbacks in the database during the run (its statistics, read 11 s after the run, once every backend has reported) over the requests answered. They include the background work of every process (worker polls, lease renewals, the revision safety poll), so evaluate and the snapshot show that background and nothing per request; the next column takes off what the same processes did while idle for as long (measured once per process count, just before).",
      `- Emails: POST /v1/emails stores the email and its \`queued\` event (one commit, shared by concurrent calls); each process's outbox worker then claims it, "sends" it to an .eml file (\`FLAGPOST_OUTBOX_DIR\`: no SMTP server here) and stores the outcome, partly during the run, so the email rows' transactions include the workers'. Sent end to end, from the first email accepted to the last one written (times stored with the emails): ${drains.map((d) => `${d.n} process(es) ${fmt(d.accepted)} emails in ${d.seconds.toFixed(1)} s (${fmt(d.accepted / d.seconds)}/s; the last sent ${d.lagSeconds.toFixed(1)} s after the last accepted)`).join("; ")}. The email part (\`npm run bench:emails\`) measures one process against raw nodemailer.`,
      "- What the rows can say depends on the cores: with 2, one `serve` at full load takes a core and PostgreSQL and autocannon share the other, so more processes add contention, not throughput (docs/scaling.md).",
    ].join("\n");
  },
};
