import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Kysely, sql } from "kysely";
import nodemailer from "nodemailer";
import { createFlagpost, type Flagpost, type OutboxWorkerOptions, type SendEmailRequest } from "flagpost";
import { kyselyStorage } from "flagpost/kysely";
import { nodemailerTransport } from "flagpost/nodemailer";
import type { CpuTimes } from "./emails-measure.js";
import { serveCalls } from "./lib/child.js";
import { freshDatabase } from "./lib/fresh-database.js";
import { silentLogger } from "./lib/silent-logger.js";
import { findThreadPool, placeThreadPool } from "./lib/thread-pool-cores.js";
import { percentile } from "./lib/stats.js";

/**
 * bench:emails' sending side, in a process of its own pinned to one core: either raw pooled
 * nodemailer (the floor) or flagpost (`send`/`sendBatch` → outbox → worker → the same pooled
 * nodemailer transporter), on a fresh SQLite file opened as `flagpost serve` opens it or a fresh
 * PostgreSQL schema. The sink is another process; bench/emails.ts times the run from the first
 * send to the sink's last arrival.
 */

export interface SendRun {
  kind: "floor" | "flagpost";
  port: number;
  count: number;
  /** Concurrent sendMail calls (floor) and concurrent callers of send/sendBatch (flagpost). */
  concurrency: number;
  engine?: "sqlite" | "postgres";
  pgUrl?: string;
  mode?: "send" | "batch";
  batchSize?: number;
  worker?: OutboxWorkerOptions;
  /** Send from a verified domain: every email DKIM-signed with its key (sealed under a secret). */
  signed?: boolean;
  /**
   * Let libuv's thread pool and the DKIM signing threads use every core while the event loop
   * stays on the core it was pinned to: a server with a spare core. Default: the pool shares the
   * event loop's core.
   */
  spreadPool?: boolean;
  /** The transport's signingThreads (unset: its default, one per core the process may use, less one). */
  signingThreads?: number;
}

export interface SendResult {
  /** Epoch ms (this machine's clock) when the first message was handed over. */
  startedAt: number;
  /** Epoch ms when the last send resolved (accepted into the outbox; the floor: the SMTP server's 250). */
  acceptedAt: number;
  /** Per call of send / sendBatch / sendMail, in ms. */
  latency: { p50: number; p99: number };
}

const now = () => performance.timeOrigin + performance.now();
const FROM = { name: "Flagpost Bench", address: "bench@flagpost.example" };
const TEXT = `Thank you for your order.\n\n${"Your items are on their way. ".repeat(16)}\n`;
const HTML = `<p>Thank you for your order.</p><p>${"Your items are on their way. ".repeat(16)}</p><p><a href="https://flagpost.example/orders">Your orders</a></p>`;

function request(i: number): SendEmailRequest {
  return {
    from: `${FROM.name} <${FROM.address}>`,
    to: [`user${i}@example.org`],
    subject: `Your receipt #${i}`,
    text: TEXT,
    html: HTML,
  };
}

/** The same pooled transporter for the floor and for flagpost: nodemailer's pool defaults. */
function transporter(port: number) {
  return nodemailer.createTransport({ host: "127.0.0.1", port, pool: true, ignoreTLS: true });
}

/** Runs `total` jobs with `concurrency` loops; returns each job's duration in ms. */
async function runJobs(total: number, concurrency: number, job: (i: number) => Promise<unknown>): Promise<number[]> {
  const durations: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await job(i);
        durations.push(performance.now() - t);
      }
    }),
  );
  return durations;
}

function latency(durations: number[]): SendResult["latency"] {
  const sorted = durations.sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function floor(run: SendRun): Promise<SendResult> {
  const mailer = transporter(run.port);
  try {
    const startedAt = now();
    const durations = await runJobs(run.count, run.concurrency, (i) => {
      const r = request(i);
      return mailer.sendMail({
        messageId: `<${randomUUID()}@flagpost.example>`,
        from: FROM,
        to: [{ name: "", address: r.to![0]! }],
        subject: r.subject,
        text: TEXT,
        html: HTML,
      });
    });
    return { startedAt, acceptedAt: now(), latency: latency(durations) };
  } finally {
    mailer.close();
  }
}

interface Open {
  fp: Flagpost;
  db: Kysely<any>;
  cleanup(): Promise<void>;
}

let open: Open | undefined;

async function openFlagpost(run: SendRun): Promise<Open> {
  const transport = nodemailerTransport(transporter(run.port), {
    closeTransporter: true,
    ...(run.signingThreads === undefined ? {} : { signingThreads: run.signingThreads }),
  });
  const { db, cleanup } = await freshDatabase(run.engine ?? "sqlite", run.pgUrl);
  const fp = createFlagpost({
    storage: kyselyStorage(db, { destroyOnClose: true }),
    transport,
    logger: silentLogger,
    emailWorker: run.worker,
    ...(run.signed ? { secretKey: "bench-emails-dkim-secret" } : {}),
    domains: { autoStart: false },
  });
  return { fp, db, cleanup };
}

/** The thread pool's threads (the signature runs there), found before any run. */
const threadPool = findThreadPool();

async function flagpost(run: SendRun): Promise<SendResult> {
  placeThreadPool(await threadPool, run.spreadPool === true);
  open = await openFlagpost(run);
  const { fp } = open;
  await fp.ready();
  if (run.signed) {
    // The bench measures signing, not DNS: the domain is marked verified in storage directly,
    // as a verify against published records would leave it.
    const { id } = await fp.domains.create({ name: FROM.address.split("@")[1]! });
    await fp.storage.transaction(async (tx) => {
      const domain = (await tx.domains.lock(id))!;
      await tx.domains.replace({ ...domain, status: "verified", updatedAt: Date.now() });
    });
  }
  const startedAt = now();
  let durations: number[];
  if (run.mode === "batch") {
    const size = run.batchSize ?? 100;
    durations = await runJobs(Math.ceil(run.count / size), run.concurrency, (b) =>
      fp.emails.sendBatch(
        Array.from({ length: Math.min(size, run.count - b * size) }, (_, j) => request(b * size + j)),
      ),
    );
  } else {
    durations = await runJobs(run.count, run.concurrency, (i) => fp.emails.send(request(i)));
  }
  return { startedAt, acceptedAt: now(), latency: latency(durations) };
}

/** After the sink has everything: waits until every outcome is stored, then closes and cleans up. Answers the status counts. */
async function finish(count: number): Promise<Record<string, number>> {
  if (!open) return {};
  const { fp, db, cleanup } = open;
  open = undefined;
  try {
    const statuses = async () => {
      const { rows } = await sql<{
        status: string;
        n: number | string;
      }>`select status, count(*) as n from flagpost_emails group by status`.execute(db);
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    };
    const deadline = performance.now() + 60_000;
    let counts = await statuses();
    while ((counts.sent ?? 0) < count && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      counts = await statuses();
    }
    return counts;
  } finally {
    await fp.close();
    await cleanup();
  }
}

/** Clock ticks per second of /proc's CPU times; undefined off Linux. */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || undefined;
  } catch {
    return undefined;
  }
})();

/**
 * CPU time of this process's main thread, the one running the event loop (its thread id is the
 * process id), in µs, from /proc (user + system ticks); undefined where /proc does not say.
 * Work on libuv's thread pool, such as an asynchronous crypto.sign, is not counted here.
 */
function eventLoopCpu(): number | undefined {
  if (ticksPerSecond === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    // Fields after "(comm) ": state is the first, utime the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6;
  } catch {
    return undefined;
  }
}

serveCalls(
  {
    run: (run: SendRun) => (run.kind === "floor" ? floor(run) : flagpost(run)),
    /** CPU time used so far (user + system, µs) by this process and by its event-loop thread. */
    cpu: (): CpuTimes => {
      const usage = process.cpuUsage();
      return { process: usage.user + usage.system, loop: eventLoopCpu() };
    },
    finish,
    close: () => finish(0),
  },
  threadPool.then(() => undefined),
);
