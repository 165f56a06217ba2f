import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, type Dialect, type LogEvent } from "kysely";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { systemClock } from "../../src/ports/clock.js";
import { FlagStore } from "../../src/flags/store/flag-store.js";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";

/**
 * A flag update reads the flag's row once, under its lock, and builds the history entry, the
 * flag.updated event and its answer from that one read (src/flags/store/flag-writes.ts). Counted with
 * Kysely's query log on a storage of its own, so no other part of flagpost adds statements.
 */

function dialectFor(database: TestDatabase): Dialect {
  if (database.backend === "sqlite") return new SqliteDialect({ database: new SQLite(database.url) });
  return new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) });
}

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.drop();
  database = undefined;
});

for (const backend of ["sqlite", "postgres"] as const) {
  describeIfBackend(backend, `a flag update on ${backend}`, () => {
    it("reads the flag's row once, and on PostgreSQL under a row lock", async () => {
      database = await createTestDatabase(backend);
      const statements: string[] = [];
      const log = (event: LogEvent) => void statements.push(event.query.sql);
      const storage = kyselyStorage(new Kysely({ dialect: dialectFor(database), log }), { destroyOnClose: true });
      try {
        await storage.migrate();
        const flags = new FlagStore(storage, systemClock);
        await flags.create({ key: "counted", rules: [{ type: "percentage", percentage: 5 }] });

        statements.length = 0;
        const updated = await flags.update("counted", { enabled: true, description: "now on" });
        const flagReads = statements.filter((s) => /^select\b/i.test(s) && /\bfrom "flagpost_flags"/i.test(s));
        expect(flagReads).toHaveLength(1);
        if (backend === "postgres") expect(flagReads[0]).toMatch(/for update$/i);
        expect(updated).toMatchObject({ key: "counted", enabled: true, description: "now on" });
        expect((await flags.history("counted")).data[0]!.changes).toEqual([
          { path: "description", before: "", after: "now on" },
          { path: "enabled", before: false, after: true },
        ]);
      } finally {
        await storage.close();
      }
    });
  });
}
