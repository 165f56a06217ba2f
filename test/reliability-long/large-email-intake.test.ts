import { setTimeout as delay } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { BACKENDS, createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { percentile } from "./support/numbers.js";
import { largeEmail, sendUntilAccepted } from "./support/large-emails.js";
import { type ProbeResults, startProber } from "./support/prober.js";
import { API_KEY, isRunning, killHard, MiB, type Served, startServe } from "./support/serve.js";

/**
 * Issue 24 item 12: while large emails are taken in, other requests must not wait behind them.
 * A `flagpost serve` child on SQLite, PostgreSQL and MariaDB takes EMAILS emails of 39 MiB (one
 * attachment), posted at once and retried after each 503 of the body budget, while a small
 * request (GET /v1/flags) is timed every 20 ms from a process of its own (support/prober.ts). Storing one such email used to hold the event
 * loop about 310 ms on SQLite (one INSERT of the whole row and its durable commit, the JSON of the
 * content), and MariaDB could not store it at all (16 MiB max_allowed_packet). Now the content is
 * written in 1 MiB slices with the loop free between them (adapters/kysely/email-content-slices.ts),
 * the body is parsed in a thread (adapters/http/json-thread.ts), and the attachment's base64 is
 * checked in small steps (src/emails/schema.ts).
 *
 * Asserted: every email accepted and stored whole; every small request answered 200, 90% of them
 * within P90_SMALL_MS, the slowest within MAX_SMALL_MS. In the long suite (about 50 s for the
 * three backends): `npm test` has no room for it.
 */

const EMAILS = 5;
const BODY_BYTES = 39 * MiB;
/**
 * Measured p90, before → after the slices: SQLite 1,117–1,308 → 83–136 ms, PostgreSQL 373–1,917 →
 * 69–91 ms, MariaDB (nothing stored before) 67–182 ms. docs/reliability.md, "Large emails and
 * other requests", has the rest.
 */
const P90_SMALL_MS = 300;
/**
 * The slowest small request, at load 13 on the 2-core development machine: 660 / 1,305 / 1,802 ms
 * (SQLite / PostgreSQL / MariaDB) before the base64 steps, body buffer and relaxed slices, 347 /
 * 211 / 405 ms after; CI measured 2.46 s before. Issue 24 asked for better than 1.8 s; the bound
 * leaves about 3 × the measured slowest for a busier machine.
 */
const MAX_SMALL_MS = 1_200;

let database: TestDatabase | undefined;
let served: Served | undefined;
afterEach(async () => {
  if (served && isRunning(served)) await killHard(served);
  served = undefined;
  await database?.drop();
  database = undefined;
});

for (const backend of BACKENDS) {
  describeIfBackend(backend, `taking in 39 MiB emails on ${backend}`, () => {
    it(
      `answers small requests within ${P90_SMALL_MS} ms (90%) and ${MAX_SMALL_MS} ms (all) while ${EMAILS} emails of 39 MiB come in`,
      { timeout: 180_000 },
      async () => {
        database = await createTestDatabase(backend);
        const server = await startServe({ FLAGPOST_DB: database.url });
        served = server;
        const bodies = Array.from({ length: EMAILS }, (_, i) => largeEmail(BODY_BYTES, i));
        await delay(500); // the start-up's own work (migrations, first purge) is not what is measured

        const prober = startProber(server.url, API_KEY, 20);
        const counts = { refused: 0, resets: 0, timeouts: 0 };
        const started = performance.now();
        let statuses: number[];
        let probes: ProbeResults;
        try {
          statuses = await Promise.all(bodies.map((body) => sendUntilAccepted(server, body, counts)));
        } finally {
          probes = await prober.stop();
        }
        const { ms: small, errors: probeErrors } = probes;
        const seconds = (performance.now() - started) / 1000;
        expect(statuses).toEqual(Array(EMAILS).fill(200));

        const storage = kyselyStorage(database.db);
        const ids = (await database.db.selectFrom("flagpost_emails").select("id").execute()) as { id: string }[];
        expect(ids).toHaveLength(EMAILS);
        const stored = (await storage.emails.getEmail(ids[0]!.id))!;
        const sent = JSON.parse(bodies[Number(stored.content.subject.slice("Large ".length))]!.toString()) as {
          attachments: { content: string }[];
        };
        expect(stored.content.attachments![0]!.content === sent.attachments[0]!.content).toBe(true);

        const figures = {
          backend,
          emails: EMAILS,
          seconds: Math.round(seconds * 10) / 10,
          refused: counts.refused,
          smallRequestMs: {
            p50: Math.round(percentile(small, 50)),
            p90: Math.round(percentile(small, 90)),
            p99: Math.round(percentile(small, 99)),
            max: Math.round(Math.max(...small)),
            samples: small.length,
            errors: probeErrors,
          },
        };
        console.info(`large email intake: ${JSON.stringify(figures)}`);
        expect(figures.smallRequestMs.p90, JSON.stringify(figures)).toBeLessThan(P90_SMALL_MS);
        expect(figures.smallRequestMs.max, JSON.stringify(figures)).toBeLessThan(MAX_SMALL_MS);
        expect(probeErrors, JSON.stringify(figures)).toBe(0);
      },
    );
  });
}
