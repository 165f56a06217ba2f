import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { MIGRATION_TABLE, MIGRATIONS, migrateTo } from "../../adapters/kysely/migrations.js";
import type { AnyKysely } from "../../adapters/kysely/dialect.js";
import { BACKENDS, createTestDatabase, describeIfBackend } from "../support/databases.js";

/**
 * One migration history (issue 26): names numbered in the order they run, and a database that
 * ran the old history 0001-initial … 0018-report-policy ends, once adopted, with the schema and
 * the bookkeeping of a database created by the baseline.
 */

describe("migration names", () => {
  it("are NNNN-topic, numbered in the order they run, the baseline first", () => {
    const names = Object.keys(MIGRATIONS);
    for (const name of names) expect(name).toMatch(/^\d{4}-[a-z0-9]+(-[a-z0-9]+)*$/);
    expect([...names].sort()).toEqual(names);
    expect(new Set(names.map((name) => name.slice(0, 4))).size).toBe(names.length);
    expect(names[0]).toBe("0001-baseline");
  });
});

/** Tables and their columns (name, type, nullability, default) as kysely introspects them. */
async function schemaOf(db: AnyKysely, backend: string) {
  const tables = await db.introspection.getTables();
  // PostgreSQL lists every schema's tables; each test database is its own schema.
  const own =
    backend === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]!.schema
      : undefined;
  return tables
    .filter((table) => own === undefined || table.schema === own)
    .filter((table) => table.name.startsWith("flagpost_") && !table.name.startsWith(MIGRATION_TABLE))
    .map((table) => ({
      table: table.name,
      columns: table.columns
        .map((c) => ({ name: c.name, type: c.dataType, nullable: c.isNullable, hasDefault: c.hasDefaultValue }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    }))
    .sort((a, b) => a.table.localeCompare(b.table));
}

/** Every index of the flagpost_ tables, as the engine's catalog describes it. */
async function indexesOf(db: AnyKysely, backend: string): Promise<unknown[]> {
  if (backend === "sqlite") {
    const { rows } = await sql`select name, tbl_name, sql from sqlite_master
      where type = 'index' and tbl_name like 'flagpost%' order by name`.execute(db);
    return rows;
  }
  if (backend === "postgres") {
    const { rows } = await sql<{ schema: string; name: string; def: string }>`
      select schemaname as schema, indexname as name, indexdef as def from pg_indexes
      where schemaname = current_schema() and tablename like 'flagpost%' order by indexname`.execute(db);
    return rows.map((row) => ({ name: row.name, def: row.def.replaceAll(`${row.schema}.`, "") }));
  }
  const { rows } = await sql`select table_name, index_name, column_name, seq_in_index, non_unique, sub_part
    from information_schema.statistics where table_schema = database() and table_name like 'flagpost%'
    order by table_name, index_name, seq_in_index`.execute(db);
  return rows;
}

async function ranNames(db: AnyKysely): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
  return rows.map((row) => row.name).sort();
}

for (const backend of BACKENDS) {
  describeIfBackend(backend, `migration history on ${backend}`, () => {
    describe(`migration history on ${backend}`, () => {
      it("adopts a database that ran the old history, with the baseline's schema", async () => {
        const fresh = await createTestDatabase(backend);
        const old = await createTestDatabase(backend);
        try {
          const freshStorage = kyselyStorage(fresh.db);
          await freshStorage.migrate();
          const all = Object.keys(MIGRATIONS);
          expect(await ranNames(fresh.db)).toEqual(all);

          await migrateTo(old.db, backend, "0012-email-summary");
          const oldStorage = kyselyStorage(old.db);
          expect(await oldStorage.pendingMigrations!()).toEqual(all);
          await oldStorage.migrate(); // finishes the old history, records the baseline, runs the newer ones
          expect(await ranNames(old.db)).toEqual(all);
          expect(await oldStorage.pendingMigrations!()).toEqual([]);

          const expected = await schemaOf(fresh.db, backend);
          expect(expected.length).toBeGreaterThan(10);
          expect(await schemaOf(old.db, backend)).toEqual(expected);
          const indexes = await indexesOf(fresh.db, backend);
          expect(indexes.length).toBeGreaterThan(10);
          expect(await indexesOf(old.db, backend)).toEqual(indexes);
          await oldStorage.migrate(); // again: nothing to do
          expect(await ranNames(old.db)).toEqual(all);
          await freshStorage.close();
          await oldStorage.close();
        } finally {
          await fresh.drop();
          await old.drop();
        }
      });
    });
  });
}
