import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { createFlagpost, type Storage } from "flagpost";
import { toNodeHandler } from "flagpost/http";
import { kyselyStorage, withStatementCache } from "flagpost/kysely";
import { serveCalls } from "./lib/child.js";
import { silentLogger } from "./lib/silent-logger.js";
import { userOfChange, watchChanges } from "./propagation-watch.js";

/**
 * One flagpost process of bench:propagation: `propagation-node.ts <pg|sqlite> <url or file>
 * [schema]`. Serves /v1 on 127.0.0.1 (no rate limit: the fan-out opens 1,000 streams with one
 * key) and reports when its own `isEnabled` saw change i (the flag's one rule lists user `u<i>`).
 * On PostgreSQL it LISTENs for flag changes, as a production process would.
 */

const [engine, target, schema] = process.argv.slice(2) as ["pg" | "sqlite", string, string | undefined];

function storage(): Storage {
  if (engine === "pg") {
    const options = schema ? `-c search_path=${schema}` : undefined;
    const db = new Kysely<any>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: target, options, max: 4 }) }),
    });
    return kyselyStorage(db, {
      destroyOnClose: true,
      listen: async () => {
        const client = new pg.Client({ connectionString: target, options });
        await client.connect();
        return client;
      },
    });
  }
  const database = new SQLite(target);
  database.pragma("journal_mode = WAL");
  database.pragma("busy_timeout = 5000");
  return kyselyStorage(new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) }), {
    destroyOnClose: true,
  });
}

const fp = createFlagpost({
  storage: storage(),
  logger: silentLogger,
  // SQLite has no LISTEN: poll the revision often, so the smoke run stays short.
  flagSync: engine === "sqlite" ? { pollIntervalMs: 50 } : {},
  flagSchedules: { autoStart: false },
});
const server = createServer(toNodeHandler(fp, { rateLimit: false, dashboard: false }));
const watch = watchChanges(fp.flagClient);

const ready = (async () => {
  await fp.ready();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { key } = await fp.keys.create({ name: "bench", scopes: ["full_access"] });
  return { port: (server.address() as AddressInfo).port, key };
})();

serveCalls(
  {
    /** The wall time (epoch ms) at which this process's isEnabled first saw change `i`. */
    seenAt: (i: number, timeoutMs: number) => watch.seenAt(i, timeoutMs),
    reset: (from: number) => watch.reset(from),
    streams: () => fp.flagStream.size,
    isEnabled: (i: number) => fp.isEnabled("prop", { userId: userOfChange(i) }),
    close: async () => {
      server.closeAllConnections();
      await fp.close();
      server.close();
    },
  },
  ready,
);
