import { createServer } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { openDatabase } from "../../cli/open-database.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { listen, type Running } from "../support/servers.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { until } from "../support/until.js";

/**
 * After a partition whose connections never come back (a NAT or firewall that lost its state, a
 * failover behind the same address), every connection the pool held is dead but silent: only a
 * statement timeout finds each one out. The pools `flagpost serve` builds (cli/database-pools.ts)
 * must not spend a statement timeout per pooled connection before storage answers again: once one
 * connection is found lost, the connections opened before it are retired, so storage answers on a
 * fresh connection as soon as the database is reachable. Before, with six pooled connections,
 * /ready stayed 503 for 2.2–8.1 s after the database was reachable again.
 */

const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 2_000;
/** Connections the pool holds when the partition starts. */
const POOLED = 6;
/** Beyond one fresh connection: the HTTP round trips on a busy 2-core machine. */
const SLACK_MS = 500;

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

for (const backend of ["postgres", "mysql"] as const) {
  describeIfBackend(backend, `pooled connections lost for good (${backend} through a proxy)`, () => {
    it("answers again as soon as the database is reachable, whatever the pool held", async () => {
      database = await createTestDatabase(backend);
      const target = new URL(database.url);
      proxy = await startTcpProxy(target.hostname, Number(target.port));
      const db = await openDatabase(proxy.via(database.url), {
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        statementTimeoutMs: STATEMENT_TIMEOUT_MS,
        logger: silentLogger,
      });
      fp = createFlagpost({ storage: kyselyStorage(db, { destroyOnClose: true }), logger: silentLogger });
      await fp.ready();
      const { key } = await fp.keys.create({ scopes: ["full_access"] });
      server = await listen(createServer(toNodeHandler(fp, { dashboard: false })));
      const url = server.url;
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const track = () =>
        fetch(`${url}/v1/events`, { method: "POST", headers, body: '{"event":"partition.test","userId":"u1"}' });
      const readiness = async () => (await fetch(`${url}/ready`)).status;

      // Six transactions at once leave six connections in the pool.
      await Promise.all(
        Array.from({ length: POOLED }, () =>
          db.transaction().execute(async (trx) => {
            await sql`select 1`.execute(trx);
            await delay(200);
          }),
        ),
      );
      expect((await track()).status).toBe(202);
      expect(await readiness()).toBe(200);

      // The partition: a call times out, and the held connections never come back.
      proxy.blackHole();
      expect((await track()).status).toBe(503);
      await proxy.restore({ dropHeld: true });

      const back = await until(
        "/ready is 200 again",
        async () => (await readiness()) === 200,
        POOLED * STATEMENT_TIMEOUT_MS + 5_000,
      );
      // One fresh connection: 19–48 ms measured; before, 2.2–8.1 s (one statement timeout per dead connection tried).
      expect(back).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);
      expect((await track()).status).toBe(202);
    }, 60_000);
  });
}
