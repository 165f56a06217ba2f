import { setTimeout as delay } from "node:timers/promises";
import { SMTPServer } from "smtp-server";
import { afterEach, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { largeEmail, sendUntilAccepted } from "./support/large-emails.js";
import { percentile } from "./support/numbers.js";
import { type ProbeResults, startProber } from "./support/prober.js";
import {
  API_KEY,
  isRunning,
  killHard,
  MiB,
  rssBytes,
  type Served,
  startServe,
  stopGracefully,
} from "./support/serve.js";

/**
 * Memory (issue 11, defect 6): 24 clients POST a 39 MiB email each to `flagpost serve` at once
 * (before the body budget, RSS reached 1.15 GB, kept 915 MB afterwards and other requests stalled
 * 4.2 s). The server holds at most 96 MiB of request bodies at a time (adapters/http/body-budget.ts;
 * a body alone is always admitted) and answers the rest 503 + Retry-After; clients retry after it
 * until every email is accepted. Meanwhile the server's RSS is sampled from /proc every 25 ms and
 * a small request is timed every 100 ms by a process of its own (support/prober.ts).
 *
 * The emails are scheduled for tomorrow, so the first phase measures taking bodies in. Then a
 * fresh process sends them (each rescheduled to now through PATCH) to an SMTP server that
 * discards what it receives: the outbox claims emails larger than 1 MiB without their content
 * and reads each when its turn comes, under a 64 MiB budget of content being sent at once.
 *
 * Asserted: every email accepted, stored and sent; RSS peak under RSS_BOUND while taking bodies
 * in, and under SENDING_RSS_BOUND while sending. What a body in flight costs is its bytes, their
 * text, the parsed JSON, the decoded attachment and the stored row (about 5 × 39 MiB for each of
 * the two bodies the budget admits), on top of the idle process; what a send costs is the row's
 * text, the parsed content, the decoded attachment and the encoder's buffers, for the one 39 MiB
 * email the 64 MiB sending budget admits at a time, plus garbage not yet collected.
 */

const CLIENTS = 24;
const BODY_BYTES = 39 * MiB;
/**
 * Idle (about 100–150 MiB) plus about 8 × 39 MiB for each of the two bodies the 96 MiB budget
 * admits, plus room for garbage V8 collects late on a busy machine: runs measured 700–782 MiB.
 */
const RSS_BOUND = 900 * MiB;
/**
 * Idle (about 150 MiB) plus about 8 × the 64 MiB sending budget: the content being sent (row
 * text, parsed content, decoded attachment, encoder buffers) and the garbage of the sends before
 * it that V8 has not collected yet. The first measurement was 554 MiB; before the budget (20
 * claimed emails with their content) the same phase took 1.2 GB and more.
 */
const SENDING_RSS_BOUND = 700 * MiB;

/**
 * What the process keeps 3 s after the intake (issue 24 item 12: 604 MiB): 476 MiB before the JSON
 * thread ended when idle, 209–312 MiB after (load 3–17).
 */
const KEPT_RSS_BOUND = 400 * MiB;
/**
 * The slowest small request while the 24 bodies come in (issue 24 item 12: 1.8 s). 3.2–5.7 s were
 * measured before the relaxed slices and base64 steps, by a prober in this process, which also
 * built the bodies meanwhile; 291 ms after (load 6), timed from a process of its own.
 */
const SLOWEST_SMALL_MS = 1_200;

let database: TestDatabase | undefined;
let served: Served | undefined;
let smtp: SMTPServer | undefined;
afterEach(async () => {
  if (served && isRunning(served)) await killHard(served);
  served = undefined;
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  smtp = undefined;
  await database?.drop();
  database = undefined;
});

/** Large emails stored (all scheduled, so none is sent yet). */
async function storedLarge(db: TestDatabase["db"]): Promise<number> {
  const rows = (await db
    .selectFrom("flagpost_emails")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .execute()) as { n: number }[];
  return Number(rows[0]!.n);
}

/** A real SMTP server on 127.0.0.1 that reads every message to its end and keeps only the count. */
async function discardingSmtp(): Promise<{ url: string; received: () => number }> {
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, _session, callback) {
      stream.on("end", () => {
        received += 1;
        callback();
      });
      stream.resume();
    },
  });
  smtp = server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as { port: number };
  return { url: `smtp://127.0.0.1:${port}`, received: () => received };
}

/**
 * Reschedules every stored email through PATCH (through `server`) to 30 s from its own PATCH,
 * which the first process must not reach while it still runs; their ids. `dueNow` then moves them
 * to now once it has stopped, so the fresh sender does not sit out the rest of those 30 s.
 */
async function rescheduleAll(server: Served, db: TestDatabase["db"]): Promise<string[]> {
  const ids = ((await db.selectFrom("flagpost_emails").select("id").execute()) as { id: string }[]).map((r) => r.id);
  for (const id of ids) {
    // PATCH refuses a past time, and 24 PATCHes of 39 MiB emails may take longer than 30 s on a
    // busy machine: each email is due 30 s after its own PATCH.
    const at = new Date(Date.now() + 30_000).toISOString();
    const response = await fetch(`${server.url}/v1/emails/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ scheduled_at: at }),
    });
    expect(response.status, await response.text()).toBe(200);
  }
  return ids;
}

/**
 * What the PATCHes wrote (scheduled_at and next_attempt_at, as the reschedule does), set to now:
 * the 30 s were room for the PATCHes and the first process's stop, not something measured.
 */
async function dueNow(db: TestDatabase["db"], ids: string[]): Promise<void> {
  const now = Date.now();
  await db
    .updateTable("flagpost_emails")
    .set({ scheduled_at: now, next_attempt_at: now })
    .where("id", "in", ids)
    .where("status", "=", "queued")
    .execute();
}

/** Samples the RSS of `server` until every email of `ids` is sent. */
async function sendStored(server: Served, db: TestDatabase["db"], ids: string[], smtpReceived: () => number) {
  const started = Date.now();
  let peak = rssBytes(server.pid)!;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(server.pid) ?? 0)), 25);
  const sentCount = async () =>
    (await db.selectFrom("flagpost_emails").select("id").where("status", "=", "sent").execute()).length;
  try {
    const deadline = Date.now() + 300_000;
    while ((await sentCount()) < ids.length && Date.now() < deadline) await delay(250); // waiting for the outbox
  } finally {
    clearInterval(sampler);
  }
  return {
    emails: ids.length,
    sent: await sentCount(),
    smtpReceived: smtpReceived(),
    seconds: (Date.now() - started) / 1000,
    peak,
  };
}

it(
  "holds RSS under its bounds while 24 clients send a 39 MiB email each, and while they are sent",
  { timeout: 600_000 },
  async () => {
    database = await createTestDatabase("sqlite");
    const sink = await discardingSmtp();
    // Nothing is due while the bodies come in: what is measured first is the intake.
    const env = { FLAGPOST_DB: database.url, FLAGPOST_SMTP_URL: sink.url };
    const server = await startServe(env);
    served = server;
    await delay(1_000);
    const idle = rssBytes(server.pid)!;

    // Built before anything is timed: making 24 bodies of 39 MiB holds this process for seconds.
    const bodies = Array.from({ length: CLIENTS }, (_, i) => largeEmail(BODY_BYTES, i));
    const started = Date.now();
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(server.pid) ?? 0)), 25);
    const prober = startProber(server.url, API_KEY, 100);

    const counts = { refused: 0, resets: 0, timeouts: 0 };
    let acceptedSeconds: number;
    let probes: ProbeResults;
    try {
      const results = await Promise.all(bodies.map((body) => sendUntilAccepted(server, body, counts)));
      acceptedSeconds = (Date.now() - started) / 1000;
      expect(results).toEqual(Array(CLIENTS).fill(200));
      expect(await storedLarge(database.db)).toBe(CLIENTS);
    } finally {
      probes = await prober.stop();
      clearInterval(sampler);
    }

    // Idle again: what the process keeps 3 s after (issue 24's figure) and 5 s after.
    await delay(3_000);
    const after3s = rssBytes(server.pid)!;
    await delay(2_000);
    const after = rssBytes(server.pid)!;
    expect.soft(peak, `RSS peak ${Math.round(peak / MiB)} MiB`).toBeLessThan(RSS_BOUND);
    expect.soft(after3s, `RSS 3 s after ${Math.round(after3s / MiB)} MiB`).toBeLessThan(KEPT_RSS_BOUND);
    const slowest = Math.max(...probes.ms);
    expect.soft(slowest, `slowest small request ${Math.round(slowest)} ms`).toBeLessThan(SLOWEST_SMALL_MS);
    expect.soft(probes.errors, "small requests not answered 200").toBe(0);
    const ids = await rescheduleAll(server, database.db);
    expect(await stopGracefully(server)).toBe(0);

    // Sending, by a fresh process: its RSS is not the intake's memory kept by the first one.
    const sender = await startServe(env);
    served = sender;
    await delay(1_000);
    const senderIdle = rssBytes(sender.pid)!;
    await dueNow(database.db, ids); // its next poll (1 s) finds them
    const sending = await sendStored(sender, database.db, ids, sink.received);
    expect(sending.sent).toBe(CLIENTS);
    // At least once: under load a 39 MiB send can outlive its lease and go again with the same
    // Message-ID (docs/reliability.md): every email arrives, and resends stay fewer than the emails.
    expect(sending.smtpReceived).toBeGreaterThanOrEqual(CLIENTS);
    expect(sending.smtpReceived).toBeLessThan(CLIENTS * 2);
    expect
      .soft(sending.peak, `RSS peak while sending ${Math.round(sending.peak / MiB)} MiB`)
      .toBeLessThan(SENDING_RSS_BOUND);
    expect(await stopGracefully(sender)).toBe(0);

    console.info(
      `reliability memory: ${JSON.stringify({
        clients: CLIENTS,
        bodyMiB: BODY_BYTES / MiB,
        refused: counts.refused,
        ofWhichResetBeforeTheAnswer: counts.resets,
        uploadsOver60sAnswered408: counts.timeouts,
        acceptedSeconds,
        rssMiB: {
          idle: Math.round(idle / MiB),
          peak: Math.round(peak / MiB),
          after3s: Math.round(after3s / MiB),
          after: Math.round(after / MiB),
          bound: RSS_BOUND / MiB,
        },
        sending: {
          emails: sending.emails,
          sent: sending.sent,
          seconds: Math.round(sending.seconds),
          rssMiB: {
            idle: Math.round(senderIdle / MiB),
            peak: Math.round(sending.peak / MiB),
            bound: SENDING_RSS_BOUND / MiB,
          },
        },
        smallRequestMs: {
          p50: Math.round(percentile(probes.ms, 50)),
          max: Math.round(Math.max(...probes.ms)),
          samples: probes.ms.length,
          errors: probes.errors,
        },
      })}`,
    );
  },
);
