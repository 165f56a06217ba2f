import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { kyselyStorage, withStatementCache } from "../../adapters/kysely/index.js";
import { createFlagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";

/** A better-sqlite3 database that counts how often each SQL text is prepared. */
function countingDatabase(file: string) {
  const database = new SQLite(file);
  const prepared = new Map<string, number>();
  const prepare = database.prepare.bind(database);
  database.prepare = ((text: string) => {
    prepared.set(text, (prepared.get(text) ?? 0) + 1);
    return prepare(text);
  }) as typeof database.prepare;
  return { database, prepared };
}

const dirs: string[] = [];
async function tempFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "flagpost-statements-"));
  dirs.push(dir);
  return join(dir, "flagpost.db");
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("withStatementCache", () => {
  it("prepares each SQL text once for kysely and answers as the plain database does", async () => {
    const { database, prepared } = countingDatabase(await tempFile());
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
    const fp = createFlagpost({ storage: kyselyStorage(db, { destroyOnClose: true }), logger: silentLogger });
    await fp.ready();
    for (let round = 0; round < 5; round++) {
      await fp.events.trackBatch(
        Array.from({ length: 50 }, (_, i) => ({ event: "signup", userId: `u${round}-${i}`, properties: { i } })),
      );
    }
    const page = await fp.events.query({ event: "signup", limit: 1000 });
    expect(page.data).toHaveLength(250);
    expect(new Set(page.data.map((e) => e.userId)).size).toBe(250);
    const inserts = [...prepared].filter(([text]) => text.startsWith('insert into "flagpost_events"'));
    expect(inserts).toHaveLength(1);
    expect(inserts[0]![1]).toBe(1);
    await fp.close();
  });

  it("keeps at most `size` statements, dropping the least recently used", async () => {
    const { database, prepared } = countingDatabase(await tempFile());
    const cached = withStatementCache(database, 2);
    for (const text of ["select 1", "select 2", "select 1", "select 3", "select 1", "select 2"]) cached.prepare(text);
    // "select 2" was the least recently used when "select 3" came, so it was prepared again.
    expect(Object.fromEntries(prepared)).toEqual({ "select 1": 1, "select 2": 2, "select 3": 1 });
    cached.close();
    expect(database.open).toBe(false);
  });

  it("re-reads the schema when a table changes under a kept statement", async () => {
    const { database } = countingDatabase(await tempFile());
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
    await sql`create table t (a integer)`.execute(db);
    await sql`insert into t values (1)`.execute(db);
    expect((await sql`select * from t`.execute(db)).rows).toEqual([{ a: 1 }]);
    await sql`alter table t add column b text default 'x'`.execute(db);
    expect((await sql`select * from t`.execute(db)).rows).toEqual([{ a: 1, b: "x" }]);
    await db.destroy();
  });
});
