import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { openSqliteDatabase } from "./sqlite-file.js";

export interface FreshDatabase {
  db: Kysely<any>;
  /** Removes what was made (the schema, the file); call after the storage closed. */
  cleanup(): Promise<void>;
}

/**
 * An empty database for one benchmark run: a SQLite file in a temp directory opened as
 * `flagpost serve` opens it (WAL, busy_timeout, synchronous=FULL), or a schema of its own on
 * PostgreSQL, dropped by `cleanup`.
 */
export async function freshDatabase(engine: "sqlite" | "postgres", pgUrl?: string): Promise<FreshDatabase> {
  if (engine === "postgres") {
    const schema = `flagpost_bench_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    const db = new Kysely<any>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: pgUrl, options: `-c search_path=${schema}` }),
      }),
    });
    return {
      db,
      async cleanup() {
        await admin.query(`drop schema if exists "${schema}" cascade`);
        await admin.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "flagpost-bench-"));
  const db = openSqliteDatabase(join(dir, "flagpost.db"));
  return { db, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}
