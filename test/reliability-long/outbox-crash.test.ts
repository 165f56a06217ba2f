import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { spawnCli, waitForOutput } from "../support/cli.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";

/**
 * An accepted email is never lost: the real CLI (`flagpost serve` on SQLite, sending to a local
 * smtp-server) is killed with SIGKILL right after answering 200 to a burst of sends, while some
 * of those emails are mid-send (the SMTP server has their data and holds its reply). After a
 * restart every accepted email is still stored and reaches the server; the only copies sent twice
 * are the ones in flight at the crash, and both copies carry the same Message-ID.
 */

const API_KEY = "reliability-test-key-0123456789";
const EMAILS = 30;
const CONCURRENCY = 4;

function listeningUrl(output: string): string {
  const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
  return (JSON.parse(line!) as { url: string }).url;
}

describe("outbox durability across kill -9", () => {
  let dir: string;
  let sink: SmtpSink;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-reliability-"));
    sink = await startSmtpSink();
  });
  afterEach(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await sink.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function start(): Promise<{ child: ChildProcess; url: string }> {
    const child = spawnCli(["serve"], {
      FLAGPOST_DB: join(dir, "flagpost.db"),
      PORT: "0",
      FLAGPOST_API_KEY: API_KEY,
      FLAGPOST_SMTP_URL: sink.url,
      FLAGPOST_EMAIL_CONCURRENCY: String(CONCURRENCY),
      // The emails a crashed process held become sendable again after this long.
      FLAGPOST_EMAIL_LEASE_MS: "2000",
    });
    children.push(child);
    const output = await waitForOutput(child, /"msg":"listening"/);
    return { child, url: listeningUrl(output) };
  }

  // Two process starts and a 2 s lease: allow for a loaded machine.
  it(
    "keeps every accepted email and sends each once more at most, with the same Message-ID",
    { timeout: 90_000 },
    async () => {
      // 1. The server takes every message's data but holds its reply: sends stay in flight.
      const held = sink.hold();
      const first = await start();
      const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
      const responses = await Promise.all(
        Array.from({ length: EMAILS }, (_, i) =>
          fetch(`${first.url}/v1/emails`, {
            method: "POST",
            headers,
            body: JSON.stringify({
              from: "Shop <orders@example.com>",
              to: `customer${i}@example.org`,
              subject: `Order ${i}`,
              text: `Thanks for order ${i}`,
            }),
          }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(EMAILS).fill(200));
      const ids = await Promise.all(responses.map(async (r) => ((await r.json()) as { id: string }).id));

      // 2. At least one send is mid-flight (the server has it, the worker has no reply): kill -9.
      await held.arrived(1);
      first.child.kill("SIGKILL");
      await once(first.child, "exit");
      await sink.idle(); // the dead process's connections are closed: what it delivered is recorded
      const inFlightAtCrash = new Set(sink.received.map((m) => m.messageId));
      held.release(); // the replies go to a dead connection
      expect(inFlightAtCrash.size).toBeGreaterThanOrEqual(1);
      expect(inFlightAtCrash.size).toBeLessThanOrEqual(CONCURRENCY);

      // 3. Every accepted email is in the database file, as the dead process left it.
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(join(dir, "flagpost.db")) }) });
      const storage = kyselyStorage(db, { destroyOnClose: true });
      const stored = await Promise.all(ids.map((id) => storage.emails.getEmail(id)));
      await storage.close();
      expect(stored.every((e) => e?.status === "queued")).toBe(true);
      const leased = stored.filter((e) => e?.leaseOwner !== undefined).length;
      expect(leased).toBeGreaterThanOrEqual(inFlightAtCrash.size);

      // 4. Restart: the queued emails go at once, the ones the dead process held once their lease ends.
      const second = await start();
      const statuses = async () =>
        Promise.all(
          ids.map(
            async (id) =>
              ((await (await fetch(`${second.url}/v1/emails/${id}`, { headers })).json()) as { status: string }).status,
          ),
        );
      const deadline = Date.now() + 60_000;
      for (;;) {
        const now = await statuses();
        if (now.every((s) => s === "sent")) break;
        if (Date.now() > deadline) throw new Error(`not all sent a minute after the restart: ${JSON.stringify(now)}`);
        await delay(50); // waiting for the outcome (and the 2 s lease), not for a backoff
      }

      // 5. Every email reached the server; only the ones in flight at the crash arrived twice, and
      //    their two copies carry the same Message-ID.
      const copies = new Map<string, number>();
      for (const m of sink.received) copies.set(m.messageId!, (copies.get(m.messageId!) ?? 0) + 1);
      for (const id of ids) {
        const messageId = `<${id}@example.com>`;
        expect(copies.get(messageId), messageId).toBe(inFlightAtCrash.has(messageId) ? 2 : 1);
      }
      expect(sink.received).toHaveLength(EMAILS + inFlightAtCrash.size);
      console.info(
        `reliability: ${EMAILS} accepted, ${inFlightAtCrash.size} in flight at kill -9 (sent twice, same Message-ID), ${EMAILS - inFlightAtCrash.size} sent exactly once`,
      );

      second.child.kill("SIGTERM");
      const [code] = (await once(second.child, "exit")) as [number | null];
      expect(code).toBe(0);
    },
  );
});
