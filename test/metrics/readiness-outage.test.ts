import { createServer } from "node:http";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { listen, type Running } from "../support/servers.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { until } from "../support/until.js";

/**
 * Issue 29: `/ready` follows PostgreSQL without a restart, each answer within 2 s. flagpost runs
 * as an app mounting it would run it: on the pg.Pool the app built as docs/storage.md says, through a TCP proxy on 127.0.0.1 that the test cuts, black-holes and reopens.
 */

/** The readiness bound (docs/operations.md) and, beyond it, the HTTP round trip on a busy 2-core machine. */
const BOUND_MS = 2_000;
const SLACK_MS = 1_000;

let database: TestDatabase | undefined;
let proxy: TcpProxy | undefined;
let fp: Flagpost | undefined;
let server: Running | undefined;
afterEach(async () => {
  await server?.close();
  await fp?.close().catch(() => undefined);
  await proxy?.close();
  await database?.drop();
  server = fp = proxy = database = undefined;
});

interface Probe {
  status: number;
  body: { status: string; checks?: Record<string, string> };
  ms: number;
}

describeIfBackend("postgres", "GET /ready through a PostgreSQL outage (a TCP proxy)", () => {
  it("answers 503 naming storage within 2 s while the database is cut or black-holed, and 200 again once it returns", async () => {
    database = await createTestDatabase("postgres");
    const target = new URL(database.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    // The pool docs/storage.md tells a library user to build (timeouts, and 'error' listeners on the
    // pool and on each connection: a cut ends the connections in use with 'error' too).
    const pool = new pg.Pool({
      connectionString: proxy.via(database.url),
      connectionTimeoutMillis: 5_000,
      statement_timeout: 10_000,
      query_timeout: 10_000,
      idle_in_transaction_session_timeout: 10_000,
      keepAlive: true,
    });
    pool.on("error", () => undefined);
    pool.on("connect", (client) => client.on("error", () => undefined));
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    fp = createFlagpost({ storage: kyselyStorage(db, { destroyOnClose: true }), logger: silentLogger });
    await fp.ready();
    server = await listen(createServer(toNodeHandler(fp, { dashboard: false })));
    const url = server.url;
    const probe = async (): Promise<Probe> => {
      const started = Date.now();
      const response = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(30_000) });
      return { status: response.status, body: (await response.json()) as Probe["body"], ms: Date.now() - started };
    };
    const readyAgain = () =>
      until("/ready is 200 again", async () => (await probe()).status === 200, BOUND_MS + SLACK_MS);

    expect(await probe()).toMatchObject({
      status: 200,
      body: { status: "ok", checks: { storage: "ok", migrations: "ok" } },
    });

    // Cut: the connections close and new ones are refused.
    await proxy.cut();
    for (let i = 0; i < 3; i++) {
      const answer = await probe();
      expect(answer).toMatchObject({
        status: 503,
        body: { status: "unavailable", checks: { storage: expect.any(String) } },
      });
      expect(answer.body.checks!.storage).not.toBe("ok");
      expect(answer.ms).toBeLessThan(BOUND_MS + SLACK_MS);
    }
    await proxy.restore();
    expect(await readyAgain()).toBeLessThan(BOUND_MS + SLACK_MS);

    // Black hole: connections stay open and nothing answers. Probes arriving together share one read.
    proxy.blackHole();
    const together = await Promise.all([probe(), probe(), probe()]);
    const alone = await probe();
    for (const answer of [...together, alone]) {
      expect(answer).toMatchObject({
        status: 503,
        body: { status: "unavailable", checks: { storage: `no answer within ${BOUND_MS} ms` } },
      });
      expect(answer.ms).toBeGreaterThanOrEqual(BOUND_MS - 50);
      expect(answer.ms).toBeLessThan(BOUND_MS + SLACK_MS);
    }
    await proxy.restore();
    expect(await readyAgain()).toBeLessThan(BOUND_MS + SLACK_MS);
    expect((await probe()).body).toEqual({ status: "ok", checks: { storage: "ok", migrations: "ok" } });
  });
});
