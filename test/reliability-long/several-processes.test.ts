import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { type Backend, createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { redisUrl } from "../support/redis.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { emailJob, sendAll, type Target } from "./support/load.js";
import { percentile, scaled } from "./support/numbers.js";
import { measurePropagation } from "./support/propagation.js";
import { isRunning, killHard, type Served, startServe, stopGracefully } from "./support/serve.js";
import { checkStoredEmails, copiesByMessageId, emailHistories, leasedBy } from "./support/stored.js";

/**
 * Several processes (issue 11): three `flagpost serve` on one PostgreSQL (and on one MariaDB)
 * database, one SMTP server.
 * 1. 3,000 emails spread over the three are each delivered exactly once, with no crash.
 * 2. Flag changes written through one process reach the others' evaluate answers: the
 *    propagation time is measured per observer (PostgreSQL LISTENs; MariaDB polls every second).
 * 3. One process is killed with SIGKILL while it holds leases on emails it is sending (the SMTP
 *    server holds its replies); the other two send those emails within 40 s.
 * The per-key rate limit is shared (PostgreSQL: in the database; MariaDB: in Redis when
 * FLAGPOST_TEST_REDIS_URL is set), so the shared limiter runs under this load too.
 */

const EMAILS = scaled(3_000);
const IN_FLIGHT = 16;
const KILL_PHASE_EMAILS = scaled(300);
const RECOVERY_BOUND_MS = 40_000;

let database: TestDatabase | undefined;
let sink: SmtpSink | undefined;
let processes: Served[] = [];
afterEach(async () => {
  await Promise.all(processes.filter(isRunning).map((p) => killHard(p)));
  processes = [];
  await sink?.close();
  sink = undefined;
  await database?.drop();
  database = undefined;
});

function roundRobin(servers: () => Served[]): Target {
  let turn = 0;
  return {
    async next() {
      const alive = servers().filter(isRunning);
      return alive[turn++ % alive.length]!.url;
    },
    failed: () => undefined,
  };
}

function sharedLimitEnv(backend: Backend): NodeJS.ProcessEnv {
  if (backend === "postgres") return { FLAGPOST_RATE_LIMIT_STORE: "postgres" };
  const redis = redisUrl();
  return redis ? { FLAGPOST_RATE_LIMIT_STORE: "redis", FLAGPOST_REDIS_URL: redis } : {};
}

/**
 * `bounds`: what the backend's mechanism must keep, in ms. A 1 s poll gives a p50 near 500 and a
 * p99 near 1,000; LISTEN must stay well under both (its target is a p99 under 100 ms on an idle
 * machine; the bound leaves room for a loaded one).
 */
async function severalProcesses(
  backend: Backend,
  propagationRounds: number,
  bounds: { p50: number; p99: number },
): Promise<void> {
  database = await createTestDatabase(backend);
  sink = await startSmtpSink();
  const run = randomBytes(4).toString("hex");
  const env: NodeJS.ProcessEnv = { FLAGPOST_DB: database.url, FLAGPOST_SMTP_URL: sink.url, ...sharedLimitEnv(backend) };
  // The first migrates alone; the other two start together against the migrated schema.
  processes.push(await startServe(env));
  processes.push(...(await Promise.all([startServe(env), startServe(env)])));

  // 1. Exactly once, no crash.
  const jobs = Array.from({ length: EMAILS }, (_, i) => emailJob(i, run));
  const started = Date.now();
  const outcomes = await sendAll(
    jobs,
    IN_FLIGHT,
    roundRobin(() => processes),
    300_000,
  );
  const emails = await checkStoredEmails(database.db, outcomes, sink, 180_000);
  const drainSeconds = (Date.now() - started) / 1000;
  expect(emails.delivered).toBe(EMAILS);
  // Soft checks here and below: every phase runs and its figures are printed even when one misses.
  expect.soft(emails.duplicated, "emails sent twice without any crash").toBe(0);
  if (emails.duplicated > 0)
    console.info(
      `reliability several-processes ${backend}: sent twice without a crash: ${JSON.stringify({
        histories: await emailHistories(database.db, emails.twice),
        problems: processes.map((p) => p.problems().slice(0, 20)),
      })}`,
    );
  expect(processes.every(isRunning)).toBe(true);

  // 2. Flag propagation between the three.
  const propagation = await measurePropagation(processes, propagationRounds);
  expect.soft(percentile(propagation, 50), "propagation p50 (ms)").toBeLessThan(bounds.p50);
  expect.soft(percentile(propagation, 99), "propagation p99 (ms)").toBeLessThan(bounds.p99);

  // 3. Kill one while it holds leases on emails mid-send.
  const victim = processes[0]!;
  const arrivals = new Map<string, number[]>();
  sink.onData = (message) => {
    if (message.messageId) arrivals.set(message.messageId, [...(arrivals.get(message.messageId) ?? []), Date.now()]);
    return undefined;
  };
  const held = sink.hold();
  const before = sink.received.length;
  const killJobs = Array.from({ length: KILL_PHASE_EMAILS }, (_, i) => emailJob(EMAILS + i, run));
  const killOutcomes = await sendAll(
    killJobs,
    IN_FLIGHT,
    roundRobin(() => processes),
    120_000,
  );
  let leasedBefore: string[] = [];
  const leaseDeadline = Date.now() + 30_000;
  while (Date.now() < leaseDeadline) {
    leasedBefore = await leasedBy(database.db, victim.pid);
    if (leasedBefore.length > 0 && sink.received.length > before) break;
    await delay(50); // waiting for the victim's worker to claim and start sending
  }
  const killedAt = await killHard(victim);
  // Leases it took between the query and the kill are still its own: the others free a dead
  // process's leases at their next heartbeat (a third of the 30 s lease), not at once.
  const leased = new Set([...leasedBefore, ...(await leasedBy(database.db, victim.pid))]);
  expect(leased.size, "emails leased by the killed process").toBeGreaterThan(0);
  held.release();
  const all = [...outcomes, ...killOutcomes];
  const afterKill = await checkStoredEmails(database.db, all, sink, RECOVERY_BOUND_MS + 30_000);
  const sentByOthersAfter = (id: string) =>
    (arrivals.get(id) ?? []).find((at) => at >= killedAt) ?? Number.POSITIVE_INFINITY;
  const recoveryMs = Math.max(...[...leased].map((id) => sentByOthersAfter(id) - killedAt));
  expect
    .soft(recoveryMs, "the killed process's leased emails were sent by the others within 40 s")
    .toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  // Copies beyond one only for emails the killed process held (it may have handed them over).
  for (const messageId of afterKill.twice) expect.soft(leased.has(messageId), messageId).toBe(true);
  const copies = copiesByMessageId(sink);
  const survivors = processes.slice(1);
  for (const p of survivors) expect(await stopGracefully(p)).toBe(0);

  console.info(
    `reliability several-processes ${backend}: ${JSON.stringify({
      processes: 3,
      sharedRateLimit: env.FLAGPOST_RATE_LIMIT_STORE ?? "memory",
      emails: {
        accepted: outcomes.length,
        stored: emails.stored,
        delivered: emails.delivered,
        duplicated: emails.duplicated,
      },
      drainSeconds: Math.round(drainSeconds),
      propagationMs: {
        samples: propagation.length,
        p50: percentile(propagation, 50),
        p99: percentile(propagation, 99),
        max: Math.max(...propagation),
      },
      kill: {
        accepted: killOutcomes.length,
        leasedByKilled: leased.size,
        sentTwice: afterKill.twice.size,
        recoverySeconds: recoveryMs / 1000,
        delivered: all.filter((o) => copies.has(`<${o.id}@example.com>`)).length,
      },
    })}`,
  );
}

describeIfBackend("postgres", "three flagpost serve on one PostgreSQL", () => {
  it("sends each email once, propagates flag changes by LISTEN, recovers a killed process's emails", async () => {
    await severalProcesses("postgres", 100, { p50: 250, p99: 1_000 });
  });
});

describeIfBackend("mysql", "three flagpost serve on one MariaDB", () => {
  it("sends each email once, propagates flag changes by polling, recovers a killed process's emails", async () => {
    await severalProcesses("mysql", 15, { p50: 1_500, p99: 2_500 });
  });
});
