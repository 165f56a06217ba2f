import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { openFlagpost } from "../../cli/open-flagpost.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { NewEvent } from "../../src/ports/storage/events.js";
import { silentLogger } from "../../src/ports/logger.js";
import { type Backend, createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { listen, type Running } from "../support/servers.js";

/**
 * Issue 24, item 5: experiment results over a few hundred thousand events must not stall the
 * rest of the server. The storage is opened as `flagpost serve` opens it (cli/open-flagpost.ts),
 * behind a real node:http server in this process; 8 results requests run at once on SQLite, 16 on
 * PostgreSQL and MariaDB (keys × the 2 each may run) while evaluation and ingestion are timed. Before heavy reads had connections of
 * their own, SQLite ran each results query on the event loop (evaluate p99 ≈ the query's time
 * several times over) and PostgreSQL/MariaDB ran 8 at once on the main pool.
 */

/** Events per backend: one results query took 180–700 ms here, by load (at least MIN_QUERY_MS is asserted below). */
const EVENTS: Record<Backend, number> = { sqlite: 250_000, postgres: 150_000, mysql: 25_000 };
/**
 * API keys reading results at once, each running the 2 it may: 8 requests on SQLite; 16 on the
 * servers, as in the probe of the issue (16 queries are what exhausted the 10-connection pool).
 */
const READERS: Record<Backend, number> = { sqlite: 4, postgres: 8, mysql: 8 };
/** Results requests each of the 8 concurrent readers makes, one after another. */
const ROUNDS = 1;
/**
 * What the heavy reads may add to the probes' p99: an evaluate or one POST /v1/events answers in
 * well under 100 ms on an idle server (≈ 2–10 ms).
 */
const PROBE_P99_BOUND_MS = 250;
/**
 * A request held behind even one heavy query waits about that query's time, so what the heavy
 * reads add to the probes' p99 must stay under half of it (and under the bound above): that tells
 * a blocked request from a loaded machine whatever the load, while a query this short could hide
 * the difference.
 */
const MIN_QUERY_MS = 100;
/**
 * The probes run this long with no heavy read, just before them and just after: their p99 then is
 * what the machine costs a probe at this moment (2–10 ms idle, hundreds of ms on a shared 2-core
 * machine at load 20), and the bounds above are on what the heavy reads add to it.
 */
const BASELINE_MS = 1_500;
const EXPERIMENT = "checkout";
const METRIC = "purchase";

/** Users assigned to a or b (a few to both, excluded), a third of them buying once or twice, and noise. */
function events(count: number): NewEvent[] {
  const base = Date.parse("2026-10-01T00:00:00Z");
  const out: NewEvent[] = [];
  const receivedAt = base + 40 * 86_400_000;
  for (let user = 0; out.length < count; user++) {
    const userId = `user-${user}`;
    const at = base + (user % 2_592_000) * 1_000;
    const add = (event: string, offset: number, properties: Record<string, unknown>) => {
      const timestampMs = at + offset;
      out.push({
        id: randomUUID(),
        event,
        userId,
        timestamp: timestampMs,
        receivedAt,
        propertiesJson: JSON.stringify(properties),
      });
    };
    add("exposure", 0, { experimentId: EXPERIMENT, variant: user % 2 === 0 ? "control" : "treatment" });
    if (user % 97 === 0) add("exposure", 5, { experimentId: EXPERIMENT, variant: "treatment" });
    if (user % 3 === 0) add(METRIC, 60_000, { revenue: (user % 50) + 0.5 });
    if (user % 6 === 0) add(METRIC, 120_000, { revenue: 3 });
    add("page_view", 30_000, { path: "/cart" });
  }
  return out.slice(0, count);
}

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const backend of ["sqlite", "postgres", "mysql"] as const) {
  describeIfBackend(backend, `heavy reads on ${backend}`, () => {
    describe(`heavy reads on ${backend}`, () => {
      let database: TestDatabase | undefined;
      let server: Running | undefined;
      let served: Flagpost | undefined;
      afterEach(async () => {
        await server?.close();
        await served?.close();
        await database?.drop();
        server = served = database = undefined;
      });

      it("run on their own connections: evaluation and ingestion keep their latency, results stay the same", async () => {
        database = await createTestDatabase(backend);
        const storage = kyselyStorage(database.db);
        await storage.migrate();
        const all = events(EVENTS[backend]);
        for (let i = 0; i < all.length; i += 5_000) await storage.events.appendEvents(all.slice(i, i + 5_000));

        // The reference: the same results computed in this process on the main connection.
        const inProcess = createFlagpost({ storage, logger: silentLogger });
        await inProcess.ready();
        const results = () => inProcess.experiments.results(EXPERIMENT, { metric: METRIC });
        await results(); // warm the caches, as the server's requests will find them
        let expected: unknown;
        const queryMs = await timed(async () => (expected = JSON.parse(JSON.stringify(await results()))));
        expect(queryMs).toBeGreaterThanOrEqual(MIN_QUERY_MS);
        const added = Math.min(PROBE_P99_BOUND_MS, queryMs / 2);

        // As serve opens it, but with room for the results queries: 16 at once on a shared 2-core
        // machine at load 20 took over serve's 10 s statement timeout (a 503), which is the load's
        // doing and not what is tested here.
        served = await openFlagpost(
          { FLAGPOST_DB: database.url, FLAGPOST_DB_STATEMENT_TIMEOUT_MS: "60000" },
          silentLogger,
        );
        const fp = served;
        const readers = await Promise.all(
          Array.from(
            { length: READERS[backend] },
            async (_, i) => (await fp.keys.create({ name: `reader-${i}`, scopes: ["events:read"] })).key,
          ),
        );
        const { key: writer } = await fp.keys.create({ name: "writer", scopes: ["flags:evaluate", "events:write"] });
        await fp.flags.create({ key: "beta", enabled: true, rules: [{ type: "percentage", percentage: 50 }] });
        server = await listen(createServer(toNodeHandler(fp, { rateLimit: false })));
        const url = server.url;
        const call = async (key: string, method: string, path: string, body?: unknown) => {
          const response = await fetch(url + path, {
            method,
            headers: {
              authorization: `Bearer ${key}`,
              ...(body !== undefined && { "content-type": "application/json" }),
            },
            ...(body !== undefined && { body: JSON.stringify(body) }),
          });
          return { status: response.status, body: (await response.json()) as { data?: unknown } };
        };
        const resultsPath = `/v1/experiments/${EXPERIMENT}/results?metric=${METRIC}`;

        /** Evaluates and ingests, one after another each, until `done()`: their times in ms. */
        const probeUntil = async (done: () => boolean) => {
          const probe = async (request: (n: number) => Promise<{ status: number }>, ok: number) => {
            const samples: number[] = [];
            for (let n = 0; !done(); n++) {
              let status = 0;
              samples.push(await timed(async () => (status = (await request(n)).status)));
              expect(status).toBe(ok);
              await pause(10);
            }
            return samples;
          };
          const [evaluate, ingest] = await Promise.all([
            probe((n) => call(writer, "POST", "/v1/flags/beta/evaluate", { userId: `probe-${n}` }), 200),
            probe(
              (n) => call(writer, "POST", "/v1/events", { event: "probe", userId: `probe-${n}`, properties: { n } }),
              202,
            ),
          ]);
          return { evaluate, ingest };
        };
        const baselineP99 = async () => {
          const until = performance.now() + BASELINE_MS;
          const quiet = await probeUntil(() => performance.now() > until);
          return { evaluate: p99(quiet.evaluate), ingest: p99(quiet.ingest) };
        };
        const before = await baselineP99();

        let heavyDone = false;
        const probes = probeUntil(() => heavyDone);
        const heavyStarted = performance.now();
        const heavy = Promise.all(
          readers.flatMap((key) =>
            [0, 1].map(async () => {
              const answers = [];
              for (let round = 0; round < ROUNDS; round++) answers.push(await call(key, "GET", resultsPath));
              return answers;
            }),
          ),
        );
        // A third heavy read of a key already running two is refused at once.
        await pause(100);
        const refused = await call(readers[0]!, "GET", resultsPath);
        const answers = (await heavy).flat();
        const heavyMs = performance.now() - heavyStarted;
        heavyDone = true;
        const { evaluate: evaluateMs, ingest: ingestMs } = await probes;
        // The larger of the two baselines: the machine's load may have risen while the reads ran.
        const after = await baselineP99();
        const baseline = {
          evaluate: Math.max(before.evaluate, after.evaluate),
          ingest: Math.max(before.ingest, after.ingest),
        };

        const figures = {
          backend,
          events: EVENTS[backend],
          concurrent: READERS[backend] * 2,
          inProcessQueryMs: Math.round(queryMs),
          heavyWallMs: Math.round(heavyMs),
          evaluate: {
            count: evaluateMs.length,
            p99: Math.round(p99(evaluateMs)),
            baselineP99: Math.round(baseline.evaluate),
          },
          ingest: { count: ingestMs.length, p99: Math.round(p99(ingestMs)), baselineP99: Math.round(baseline.ingest) },
          addedBound: Math.round(added),
        };
        console.log(`heavy reads ${JSON.stringify(figures)}`);
        expect(evaluateMs.length).toBeGreaterThan(5);
        expect(p99(evaluateMs), JSON.stringify(figures)).toBeLessThan(baseline.evaluate + added);
        expect(p99(ingestMs), JSON.stringify(figures)).toBeLessThan(baseline.ingest + added);
        expect(refused.status).toBe(429);
        expect(answers).toHaveLength(READERS[backend] * 2 * ROUNDS);
        for (const answer of answers) expect(answer).toEqual({ status: 200, body: { data: expected } });
      }, 120_000); // a budget for a stuck run: 250,000 events stored, then 8 to 16 heavy reads, took 62 s at load 20
    });
  });
}

describe("heavy reads on SQLite: which reads go to the thread", () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it("sends results and event queries over more than 24 hours to it, and keeps short queries and writes", async () => {
    database = await createTestDatabase("sqlite");
    await kyselyStorage(database.db).migrate();
    const sample = events(40);
    const day = 24 * 60 * 60 * 1000;
    const from = sample[0]!.timestamp;
    const long = { from, to: from + day + 1 };
    const short = { from, to: from + day };
    const query = { experimentId: EXPERIMENT, metric: METRIC };

    // A thread pointed at a file that does not exist: every read sent to it fails, and says so.
    const missing = kyselyStorage(database.db, { heavyReads: { sqliteFile: `${database.url}.missing` } });
    await missing.events.appendEvents(sample);
    expect((await missing.events.queryEvents(short, undefined, 100)).length).toBe(40);
    const unavailable = { code: "unavailable", message: expect.stringContaining("for heavy reads") };
    await expect(missing.events.queryEvents(long, undefined, 100)).rejects.toMatchObject(unavailable);
    await expect(missing.events.queryEvents({}, undefined, 100)).rejects.toMatchObject(unavailable);
    await expect(missing.experiments.experimentTotals(query)).rejects.toMatchObject(unavailable);
    await missing.close();

    // On the file itself, the thread's answers are the main connection's.
    const main = kyselyStorage(database.db);
    const threaded = kyselyStorage(database.db, { heavyReads: { sqliteFile: database.url } });
    expect(await threaded.events.queryEvents(long, undefined, 100)).toEqual(
      await main.events.queryEvents(long, undefined, 100),
    );
    expect(await threaded.experiments.experimentTotals(query)).toEqual(await main.experiments.experimentTotals(query));
    await threaded.close();
    await expect(threaded.experiments.experimentTotals(query)).rejects.toMatchObject({ code: "unavailable" });
  }, 30_000);
});
