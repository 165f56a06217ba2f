import { sql, type Kysely, type RawBuilder } from "kysely";
import { syncWal } from "./sqlite-wal-sync.js";

/** Whatever a raw statement runs on: a Kysely instance, a held connection or a transaction. */
type Runner = Parameters<RawBuilder<unknown>["execute"]>[0];

/**
 * SQLite's part of a relaxed commit (adapters/kysely/relaxed-durability.ts says why it is safe):
 * `synchronous` is a connection setting, so the work runs on the connection held for it, with
 * NORMAL set before and the previous level restored after. Only a WAL database at FULL (or
 * EXTRA) is relaxed: NORMAL is unsafe for a rollback journal, and a lower level is left alone.
 */
export async function withSqliteNormalSync<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  return (await atNormalSync(db, work)).value;
}

/**
 * SQLite's synced commit (an acceptance): committed at NORMAL like a relaxed one, then the WAL
 * file fdatasynced on libuv's thread pool (sqlite-wal-sync.ts) before this resolves, after the
 * connection is released, so other work runs on it and on the event loop meanwhile. Where a
 * relaxed commit would not relax (no WAL, a level below FULL, an in-memory database) the commit
 * is what it was: nothing more to sync.
 */
export async function withSqliteSyncedWal<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const { value, walFile } = await atNormalSync(db, work);
  if (walFile !== undefined) await syncWal(walFile, db);
  return value;
}

/** `work` on a held connection at NORMAL where that is a relaxation, with the WAL file its commits went to. */
function atNormalSync<DB, T>(
  db: Kysely<DB>,
  work: (db: Kysely<DB>) => Promise<T>,
): Promise<{ value: T; walFile: string | undefined }> {
  return db.connection().execute(async (connection) => {
    const relax = await relaxation(db, connection);
    if (relax) await sql`PRAGMA synchronous = NORMAL`.execute(connection);
    try {
      return { value: await work(connection), walFile: relax?.walFile };
    } finally {
      if (relax) await sql.raw(`PRAGMA synchronous = ${relax.previous}`).execute(connection);
    }
  });
}

/**
 * Per connection (a Kysely instance on better-sqlite3 has one): whether it is in WAL mode and
 * its main file ("" in memory). Read once, on its first relaxed commit, not on every one:
 * - the main file of a connection never changes (ATTACH adds others);
 * - the journal mode is the database's, and WAL persists in the file. Another connection cannot
 *   take the database out of WAL while this one is open (it gets SQLITE_BUSY), so only a
 *   `PRAGMA journal_mode` on this very connection could; flagpost never runs one, and a storage's
 *   connection must not be switched under it (docs/storage.md). Another connection switching a
 *   rollback journal to WAL leaves this one reading "not WAL": its commits stay at FULL, which is
 *   slower but as durable.
 */
const connectionFiles = new WeakMap<object, { wal: boolean; file: string }>();

/**
 * Whether a commit on `on` (held from `db`) is relaxed: the level to restore after it and the WAL
 * file it goes to; undefined for a rollback journal, a database in memory or a level below FULL.
 * The level is read on every relaxed commit, not remembered, so that a level changed on the
 * connection meanwhile is the one restored: with NORMAL and the restore, three statements per
 * relaxed commit at FULL, one below FULL, none for a rollback journal or in memory. The first
 * commit reads level, mode and file in one statement (the pragma table functions, which prepare
 * a statement of their own each time: about 9 µs, against 1 µs for the plain pragma that the
 * later ones run).
 */
async function relaxation(db: object, on: Runner): Promise<{ previous: number; walFile: string } | undefined> {
  let previous: number;
  let known = connectionFiles.get(db);
  if (known) {
    if (!known.wal || known.file === "") return undefined;
    const { rows } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(on);
    previous = Number(rows[0]?.synchronous ?? 2);
  } else {
    const { rows } = await sql<{
      synchronous: number;
      journal_mode: string;
      file: string;
    }>`select s.synchronous, j.journal_mode, d.file from pragma_synchronous() as s, pragma_journal_mode() as j, pragma_database_list() as d where d.name = 'main'`.execute(
      on,
    );
    const row = rows[0];
    previous = Number(row?.synchronous ?? 2);
    known = { wal: String(row?.journal_mode ?? "").toLowerCase() === "wal", file: String(row?.file ?? "") };
    connectionFiles.set(db, known);
  }
  return previous >= 2 && known.wal && known.file !== "" ? { previous, walFile: `${known.file}-wal` } : undefined;
}
