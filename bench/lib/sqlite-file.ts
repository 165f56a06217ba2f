import { existsSync, statSync } from "node:fs";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { withStatementCache } from "flagpost/kysely";

/** better-sqlite3 opened as the CLI opens it (cli/open-database.ts): WAL, busy_timeout, synchronous=FULL. */
export function openSqliteHandle(file: string): SQLite.Database {
  const handle = new SQLite(file, { timeout: 5000 });
  handle.pragma("journal_mode = WAL");
  handle.pragma("busy_timeout = 5000");
  handle.pragma("synchronous = FULL");
  return handle;
}

/**
 * A SQLite file opened as `flagpost serve` opens it (cli/open-database.ts, which the package does
 * not export), built from what docs/storage.md shows users: the handle above, foreign keys on, and
 * `withStatementCache` from flagpost/kysely.
 */
export function openSqliteDatabase(file: string): Kysely<any> {
  const handle = openSqliteHandle(file);
  handle.pragma("foreign_keys = ON");
  return new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(handle) }) });
}

/** The file's size after VACUUM (every b-tree rebuilt, free pages dropped) and a WAL checkpoint. */
export function sqliteSize(handle: SQLite.Database, file: string): number {
  handle.exec("vacuum");
  handle.pragma("wal_checkpoint(TRUNCATE)");
  const wal = existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0;
  return statSync(file).size + wal;
}
