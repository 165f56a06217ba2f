import { existsSync, statSync } from "node:fs";
import SQLite from "better-sqlite3";

/** better-sqlite3 opened as the CLI opens it (cli/open-database.ts): WAL, busy_timeout, synchronous=FULL. */
export function openSqliteHandle(file: string): SQLite.Database {
  const handle = new SQLite(file, { timeout: 5000 });
  handle.pragma("journal_mode = WAL");
  handle.pragma("busy_timeout = 5000");
  handle.pragma("synchronous = FULL");
  return handle;
}

/** The file's size after VACUUM (every b-tree rebuilt, free pages dropped) and a WAL checkpoint. */
export function sqliteSize(handle: SQLite.Database, file: string): number {
  handle.exec("vacuum");
  handle.pragma("wal_checkpoint(TRUNCATE)");
  const wal = existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0;
  return statSync(file).size + wal;
}
