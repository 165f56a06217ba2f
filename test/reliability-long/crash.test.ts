import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { type Backend, createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { emailJob, eventJob, type Outcome, sendAll, type Target } from "./support/load.js";
import { percentile, runSeed, scaled, seeded, shuffle } from "./support/numbers.js";
import { isRunning, killHard, type Served, startServe, stopGracefully } from "./support/serve.js";
import {
  checkStoredEmails,
  checkStoredEvents,
  emailHistories,
  leasedBy,
  recoverySeconds,
  sendLags,
  takenOverAfter,
} from "./support/stored.js";

/**
 * Crash suite (issue 11): `flagpost serve` in a child process on SQLite and on PostgreSQL,
 * sending to a real SMTP server, takes 2,000 emails and 20,000 events from 16 clients in flight
 * while it is killed with SIGKILL at 6 seeded random moments and restarted each time. Clients
 * retry with the same Idempotency-Key until answered 2xx. Then: every accepted email reached the
 * SMTP server at least once (copies counted; copies share the Message-ID), every accepted event
 * is stored exactly once under the id it was answered with, nothing else and nothing half
 * written is stored, and the emails a killed process held a lease on were taken over by its
 * restart within lease + 10 s (when they then went out is reported, with the outbox's backlog).
 */

const EMAILS = scaled(2_000);
const EVENTS = scaled(20_000);
const IN_FLIGHT = 16;
const KILLS = 6;
/** The outbox lease of the children: a restart frees its predecessor's leases at once, others wait for this. */
const LEASE_MS = 10_000;
const RECOVERY_BOUND_MS = LEASE_MS + 10_000;

interface Life {
  served: Served;
  pid: number;
  listeningAt: number;
  killedAt?: number;
}

let database: TestDatabase | undefined;
let sink: SmtpSink | undefined;
let current: Served | undefined;
afterEach(async () => {
  if (current && isRunning(current)) await killHard(current);
  current = undefined;
  await sink?.close();
  sink = undefined;
  await database?.drop();
  database = undefined;
});

/** The server requests go to; while it is being replaced, `next` waits for the new one. */
function restartingTarget() {
  let waiting: { promise: Promise<void>; resolve(): void; reject(error: unknown): void } | undefined;
  const target: Target & { down(): void; up(served: Served): void; broken(error: unknown): void } = {
    async next() {
      for (;;) {
        if (current) return current.url;
        await waiting?.promise;
      }
    },
    failed: () => undefined,
    down() {
      current = undefined;
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      promise.catch(() => undefined);
      waiting = { promise, resolve, reject };
    },
    up(served) {
      current = served;
      waiting?.resolve();
    },
    broken: (error) => waiting?.reject(error),
  };
  return target;
}

async function crashRun(backend: Backend, seed: number): Promise<void> {
  const random = seeded(seed);
  const run = randomBytes(4).toString("hex");
  database = await createTestDatabase(backend);
  sink = await startSmtpSink();
  const firstArrival = new Map<string, number>();
  sink.onData = (message) => {
    if (message.messageId && !firstArrival.has(message.messageId)) firstArrival.set(message.messageId, Date.now());
    return undefined;
  };
  const env = { FLAGPOST_DB: database.url, FLAGPOST_SMTP_URL: sink.url, FLAGPOST_EMAIL_LEASE_MS: String(LEASE_MS) };

  const jobs = shuffle(
    [
      ...Array.from({ length: EMAILS }, (_, i) => emailJob(i, run)),
      ...Array.from({ length: EVENTS }, (_, i) => eventJob(i, run)),
    ],
    random,
  );
  // One kill in each of KILLS equal stretches of the run, at a random point of it.
  const killPoints = Array.from({ length: KILLS }, (_, k) =>
    Math.floor(jobs.length * (0.05 + (0.85 * (k + random())) / KILLS)),
  );
  const lives: Life[] = [];
  const target = restartingTarget();
  const first = await startServe(env);
  lives.push({ served: first, pid: first.pid, listeningAt: first.listeningAt });
  target.up(first);

  /** Emails a killed process held a lease on when it died: what its restart must recover. */
  const heldAtAKill = new Set<string>();
  /** Per restart: ms from listening until the new process had leased (or sent) all of them. */
  const takeovers: Promise<number | undefined>[] = [];
  let kills = 0;
  let restarting: Promise<void> | undefined;
  const restarts: Promise<void>[] = [];
  const started = Date.now();
  const outcomes = await sendAll(jobs, IN_FLIGHT, target, 480_000, (_outcome, accepted) => {
    if (restarting || kills >= KILLS || accepted < killPoints[kills]!) return;
    kills += 1;
    restarting = (async () => {
      await delay(random() * 250); // a random moment, not just after an answer
      const victim = current!;
      target.down();
      const leasedBefore = await leasedBy(database!.db, victim.pid);
      lives.at(-1)!.killedAt = await killHard(victim);
      // Leases taken between the query and the kill are read now (the process is gone).
      const held = [...new Set([...leasedBefore, ...(await leasedBy(database!.db, victim.pid))])];
      for (const id of held) heldAtAKill.add(id);
      const next = await startServe(env);
      lives.push({ served: next, pid: next.pid, listeningAt: next.listeningAt });
      target.up(next);
      const db = database!.db;
      takeovers.push(takenOverAfter(db, held, next.pid, next.listeningAt, () => current === next && isRunning(next)));
    })().then(
      () => void (restarting = undefined),
      (error: unknown) => target.broken(error),
    );
    restarts.push(restarting);
  });
  await Promise.all(restarts);
  const takeoverMs = (await Promise.all(takeovers)).filter((ms) => ms !== undefined);
  const loadSeconds = (Date.now() - started) / 1000;
  expect(kills).toBe(KILLS);

  const accepted = (kind: Outcome["job"]["kind"]) => outcomes.filter((o) => o.job.kind === kind);
  const emails = await checkStoredEmails(database.db, accepted("email"), sink, 180_000);
  const events = await checkStoredEvents(database.db, accepted("event"));
  if (backend === "sqlite") {
    const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(database.db);
    expect(rows).toEqual([{ integrity_check: "ok" }]);
  }
  // The bound is on what recovery does: the emails a killed process held are taken over (leased
  // by the restarted process, or sent) within lease + 10 s of the restart, instead of waiting for
  // their leases to end. When they then reach the SMTP server also depends on how far the outbox
  // is behind the intake: that wait, and the one of emails merely queued at a kill, are reported
  // (`heldSentAfterRestart`, `acceptedBeforeARestart`, `sendLagSeconds`), not bounded — on a
  // saturated machine SQLite's outbox falls behind 16 clients whether or not anything is killed
  // (docs/reliability.md).
  const recovery = recoverySeconds(emails.sent, lives, firstArrival, heldAtAKill);
  const queuedAtARestart = recoverySeconds(emails.sent, lives, firstArrival);
  const lags = sendLags(emails.sent, firstArrival);
  const worstTakeover = takeoverMs.length === 0 ? 0 : Math.max(...takeoverMs);
  if (worstTakeover > RECOVERY_BOUND_MS)
    console.info(
      `reliability crash ${backend}: held emails taken over late: ${JSON.stringify({
        slowest: recovery.slowest,
        histories: await emailHistories(
          database.db,
          recovery.slowest.map((s) => s.messageId),
        ),
        problems: lives.map((l, i) => ({ life: i, problems: l.served.problems().slice(0, 20) })),
      })}`,
    );
  // Soft: the figures below are printed even when the bound is missed.
  expect(takeoverMs.length, "restarts whose takeover was measured").toBeGreaterThan(0);
  expect
    .soft(worstTakeover, `a restarted process took ${worstTakeover} ms to take over its predecessor's emails`)
    .toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  expect(await stopGracefully(current!)).toBe(0);

  const interrupted = outcomes.filter((o) => o.interrupted > 0).length;
  console.info(
    `reliability crash ${backend}: ${JSON.stringify({
      seed,
      kills,
      loadSeconds: Math.round(loadSeconds),
      emails: {
        accepted: accepted("email").length,
        stored: emails.stored,
        delivered: emails.delivered,
        duplicated: emails.duplicated,
      },
      events: { accepted: accepted("event").length, stored: events.stored },
      requestsInterrupted: interrupted,
      requestsRefused409or503: outcomes.filter((o) => o.refused > 0).length,
      emailsHeldAtAKill: heldAtAKill.size,
      takeoverSeconds: seconds(takeoverMs, RECOVERY_BOUND_MS),
      heldSentAfterRestart: { count: recovery.count, ...seconds(recovery.all, RECOVERY_BOUND_MS) },
      acceptedBeforeARestart: { count: queuedAtARestart.count, ...seconds(queuedAtARestart.all, RECOVERY_BOUND_MS) },
      sendLagSeconds: {
        all: seconds(lags),
        firstHalf: seconds(lags.slice(0, lags.length / 2)),
        secondHalf: seconds(lags.slice(lags.length / 2)),
      },
      restartSeconds: lives.slice(1).map((life, i) => (life.listeningAt - lives[i]!.killedAt!) / 1000),
    })}`,
  );
}

/** p50, p99 and max of durations in ms, in seconds; with a bound, how many are over it. */
function seconds(ms: readonly number[], bound?: number) {
  return {
    p50: percentile(ms, 50) / 1000,
    p99: percentile(ms, 99) / 1000,
    max: ms.length === 0 ? 0 : Math.max(...ms) / 1000,
    ...(bound === undefined ? {} : { overBound: ms.filter((x) => x > bound).length }),
  };
}

it("SQLite: nothing accepted is lost or doubled through 6 kill -9s", { timeout: 600_000 }, async () => {
  await crashRun("sqlite", runSeed());
});

describeIfBackend("postgres", "crash suite on PostgreSQL", () => {
  it("PostgreSQL: nothing accepted is lost or doubled through 6 kill -9s", { timeout: 600_000 }, async () => {
    await crashRun("postgres", runSeed() + 1);
  });
});
