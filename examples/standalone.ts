// flagpost on its own node:http server, storing in SQLite.
// Run: npx tsx examples/standalone.ts   (PORT and DB_FILE optional)
import { createServer } from "node:http";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { createFlagpost } from "flagpost";
import { toNodeHandler } from "flagpost/http";
import { kyselyStorage } from "flagpost/kysely";

const sqlite = new Database(process.env.DB_FILE ?? "standalone.db");
sqlite.pragma("journal_mode = WAL"); // readers do not wait for the writer
sqlite.pragma("busy_timeout = 5000");
const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });

const fp = createFlagpost({ storage: kyselyStorage(db, { destroyOnClose: true }) });
await fp.ready();
const { key } = await fp.keys.create({ name: "example", scopes: ["full_access"] });

const server = createServer(toNodeHandler(fp)).listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}`, key }));
});

process.once("SIGTERM", () => server.close(() => void fp.close()));
