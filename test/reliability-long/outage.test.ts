import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { emailJob, eventJob, type Job, type Outcome } from "./support/load.js";
import { percentile } from "./support/numbers.js";
import { API_KEY, isRunning, killHard, type Served, startServe } from "./support/serve.js";
import { checkStoredEmails, checkStoredEvents } from "./support/stored.js";

/**
 * Outage suite (issue 24 §1, §4): `flagpost serve` on PostgreSQL through a TCP proxy, under a
 * bounded load of emails and events (each retried with its Idempotency-Key until accepted) and
 * of flag evaluations, while the test cuts the proxy (ECONNREFUSED), black-holes it (a partition:
 * nothing refused, nothing answered) and terminates serve's backends (pg_terminate_backend).
 * Asserted: the process stays up; requests that need storage get 503 with Retry-After during the
 * outage and none waits past the statement timeout; evaluation answers 200 throughout; /ready is
 * 503 during each outage and 200 within 2 s of the database's return; no accepted email or event
 * is lost. The figures are printed for docs/reliability.md.
 */

const STATEMENT_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** Beyond the statement timeout: an HTTP round trip on a busy 2-core machine. */
const HANG_SLACK_MS = 2_500;
const READY_BOUND_MS = 2_000;
/** How often /ready is asked: its answer after a return is late by at most this much. */
const READY_POLL_MS = 200;
const MAX_JOBS = 3_000;
const IN_FLIGHT = 6;

let database: TestDatabase | undefined;
let proxy: TcpProxy | undefined;
let sink: SmtpSink | undefined;
let served: Served | undefined;
afterEach(async () => {
  if (served && isRunning(served)) await killHard(served);
  await proxy?.close();
  await sink?.close();
  await database?.drop();
  served = proxy = sink = database = undefined;
});

interface Attempt {
  path: string;
  status: number | "no answer";
  ms: number;
  at: number;
  retryAfter: string | null;
}

function post(url: string, path: string, body: string, extra: Record<string, string> = {}) {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json", ...extra },
    body,
    signal: AbortSignal.timeout(60_000),
  });
}

/** Sends `job` until answered 2xx, recording every attempt. */
async function deliver(url: string, job: Job, attempts: Attempt[], stopAt: number): Promise<Outcome | undefined> {
  for (;;) {
    if (Date.now() > stopAt) return undefined;
    const at = Date.now();
    let status: number | "no answer" = "no answer";
    let retryAfter: string | null = null;
    let text = "";
    try {
      const response = await post(url, job.path, job.body, { "idempotency-key": job.idempotencyKey });
      status = response.status;
      retryAfter = response.headers.get("retry-after");
      text = await response.text();
    } catch {
      // counted below as "no answer"
    }
    attempts.push({ path: job.path, status, ms: Date.now() - at, at, retryAfter });
    if (typeof status === "number" && status >= 200 && status < 300) {
      const parsed = JSON.parse(text) as { id?: string; data?: { id: string } };
      return { job, id: parsed.id ?? parsed.data!.id, status, acceptedAt: Date.now(), interrupted: 0, refused: 0 };
    }
    if (status !== 503 && status !== 409) throw new Error(`${job.path}: unexpected ${status} ${text.slice(0, 300)}`);
    await delay(100);
  }
}

describeIfBackend("postgres", "outage suite (PostgreSQL behind a TCP proxy)", () => {
  it("stays up, answers 503 in time, evaluates throughout, is ready again within 2 s, loses nothing", async () => {
    database = await createTestDatabase("postgres");
    const pg = new URL(database.url);
    proxy = await startTcpProxy(pg.hostname, Number(pg.port || 5432));
    sink = await startSmtpSink();
    // Serve's backends are found by this name: the PostgreSQL server is shared with other test runs.
    const application = `flagpost_outage_${randomBytes(4).toString("hex")}`;
    const dbUrl = new URL(proxy.via(database.url));
    dbUrl.searchParams.set("application_name", application);
    served = await startServe({
      FLAGPOST_DB: dbUrl.toString(),
      FLAGPOST_SMTP_URL: sink.url,
      FLAGPOST_DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      FLAGPOST_DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    });
    const url = served.url;
    expect((await post(url, "/v1/flags", JSON.stringify({ key: "checkout", enabled: true }))).status).toBe(201);

    const run = randomBytes(3).toString("hex");
    let stop = false;
    const attempts: Attempt[] = [];
    const emails: Outcome[] = [];
    const events: Outcome[] = [];
    let next = 0;
    const hardStop = Date.now() + 150_000;
    const writer = async () => {
      while (!stop && next < MAX_JOBS) {
        const index = next++;
        const job = index % 5 === 0 ? emailJob(index / 5, run) : eventJob(index - Math.floor(index / 5) - 1, run);
        const outcome = await deliver(url, job, attempts, hardStop);
        if (outcome) (job.kind === "email" ? emails : events).push(outcome);
      }
    };
    const evaluations: Attempt[] = [];
    const evaluator = async () => {
      while (!stop) {
        const at = Date.now();
        let status: number | "no answer" = "no answer";
        try {
          const response = await post(url, "/v1/flags/checkout/evaluate", '{"userId":"u1"}');
          status = response.status;
          await response.arrayBuffer();
        } catch {
          // recorded as "no answer"
        }
        evaluations.push({ path: "evaluate", status, ms: Date.now() - at, at, retryAfter: null });
        await delay(50);
      }
    };
    /** Each /ready answer: when it was asked (`at`) and when the answer came (`done`). */
    const readiness: { at: number; done: number; status: number | "no answer" }[] = [];
    const prober = async () => {
      while (!stop) {
        const at = Date.now();
        const status = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(10_000) }).then(
          (r) => r.status,
          () => "no answer" as const,
        );
        readiness.push({ at, done: Date.now(), status });
        await delay(READY_POLL_MS);
      }
    };
    const load = Promise.all([...Array.from({ length: IN_FLIGHT }, writer), evaluator(), prober()]);

    /** Waits for /ready to answer 200 after `since`: how long after `since` that answer was asked for. */
    const readyAgain = async (since: number): Promise<number> => {
      for (;;) {
        const answer = readiness.find((r) => r.at >= since && r.status === 200);
        if (answer) return answer.at - since;
        if (Date.now() - since > 60_000) throw new Error("/ready never came back");
        await delay(50);
      }
    };
    const outages: { name: string; from: number; to: number; readyAfterMs?: number }[] = [];
    const outage = async (name: string, start: () => Promise<void> | void, holdMs: number) => {
      const from = Date.now();
      await start();
      await delay(holdMs);
      const to = Date.now();
      await proxy!.restore();
      const readyAfterMs = await readyAgain(to);
      outages.push({ name, from, to, readyAfterMs });
      await delay(3_000);
    };

    await delay(3_000);
    await outage("cut", () => proxy!.cut(), 8_000);
    await outage("black hole", () => proxy!.blackHole(), STATEMENT_TIMEOUT_MS + 4_000);
    // pg_terminate_backend through a connection of the test's own, not through the proxy.
    const terminate = async () => {
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${application}`.execute(
        database!.db,
      );
    };
    await outage("pg_terminate_backend", terminate, 0);
    stop = true;
    await load;

    // The process stayed up through all of it.
    expect(isRunning(served), served.output().slice(-4_000)).toBe(true);

    for (const o of outages)
      process.stdout.write(
        `${o.name} /ready: ${JSON.stringify(readiness.filter((r) => r.at > o.from - 500 && r.at < o.to + 3_000).map((r) => [r.at - o.from, r.status]))}\n`,
      );
    // During each outage (cut, black hole), /ready answered 503; within 2 s of the return, 200.
    for (const o of outages) {
      if (o.name !== "pg_terminate_backend") {
        // Asked and answered while the database was away (an answer that came after the return may be 200).
        const during = readiness.filter((r) => r.at > o.from + READY_BOUND_MS + 500 && r.done < o.to);
        expect(during.length, `${o.name}: /ready asked during the outage`).toBeGreaterThan(0);
        expect(new Set(during.map((r) => r.status)), `${o.name}: /ready during the outage`).toEqual(new Set([503]));
      }
      expect(o.readyAfterMs!, `${o.name}: /ready back after`).toBeLessThanOrEqual(READY_BOUND_MS);
    }

    // Requests needing storage: refused with 503 + Retry-After, never held past the statement timeout.
    const refused = attempts.filter((a) => a.status === 503);
    const unanswered = attempts.filter((a) => a.status === "no answer");
    expect(unanswered, "requests without an answer").toEqual([]);
    expect(refused.length, "503s during the outages").toBeGreaterThan(0);
    expect(refused.filter((a) => a.retryAfter === null)).toEqual([]);
    const slowest = Math.max(...attempts.map((a) => a.ms));
    const phaseOf = (at: number) =>
      outages.find((o) => at >= o.from - 1_000 && at <= o.to + 5_000)?.name ?? "between outages";
    process.stdout.write(
      `slowest attempts: ${JSON.stringify(
        [...attempts]
          .sort((a, b) => b.ms - a.ms)
          .slice(0, 8)
          .map((a) => ({ path: a.path, status: a.status, ms: a.ms, phase: phaseOf(a.at) })),
      )}\n`,
    );
    expect(slowest, "slowest storage request (ms)").toBeLessThan(STATEMENT_TIMEOUT_MS + HANG_SLACK_MS);

    // Evaluation answered 200 throughout.
    expect(evaluations.filter((e) => e.status !== 200)).toEqual([]);
    const evaluationMs = evaluations.map((e) => e.ms);

    // Nothing accepted was lost.
    await checkStoredEmails(database.db, emails, sink, 60_000);
    await checkStoredEvents(database.db, events);

    const figures = {
      accepted: { emails: emails.length, events: events.length },
      attempts: attempts.length,
      refused503: refused.length,
      slowestStorageRequestMs: slowest,
      refusedMs: {
        p50: percentile(
          refused.map((a) => a.ms),
          50,
        ),
        max: Math.max(0, ...refused.map((a) => a.ms)),
      },
      evaluations: evaluations.length,
      evaluationMs: {
        p50: percentile(evaluationMs, 50),
        p99: percentile(evaluationMs, 99),
        max: Math.max(...evaluationMs),
      },
      outages: outages.map((o) => ({ name: o.name, heldMs: o.to - o.from, readyAfterMs: o.readyAfterMs })),
    };
    process.stdout.write(`outage figures: ${JSON.stringify(figures)}\n`);
  });
});
