import { sql, type Kysely, type RawBuilder } from "kysely";
import { releaseWalSyncs, syncWal } from "./sqlite-wal-sync.js";

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

/** `db` syncs no more (its storage closes): the WAL file's descriptor kept for it is closed. */
export function releaseSqliteSyncs<DB>(db: Kysely<DB>): Promise<void> {
  return releaseWalSyncs(db);
}

/** `work` on a held connection at NORMAL where that is a relaxation, with the WAL file its commits went to. */
function atNormalSync<DB, T>(
  db: Kysely<DB>,
  work: (db: Kysely<DB>) => Promise<T>,
): Promise<{ value: T; walFile: string | undefined }> {
  return db.connection().execute(async (connection) => {
    const { previous, wal, file } = await sqliteDurability(connection);
    const relax = previous >= 2 && wal && file !== "";
    if (relax) await sql`PRAGMA synchronous = NORMAL`.execute(connection);
    try {
      return { value: await work(connection), walFile: relax ? `${file}-wal` : undefined };
    } finally {
      if (relax) await sql.raw(`PRAGMA synchronous = ${previous}`).execute(connection);
    }
  });
}

/**
 * The connection's synchronous level, whether it is in WAL mode and its main file ("" in memory),
 * in one statement (the pragma table functions): read on every relaxed commit, not remembered, so
 * a level changed on the connection meanwhile is the one restored. Three statements per relaxed
 * commit instead of four.
 */
async function sqliteDurability(db: Runner): Promise<{ previous: number; wal: boolean; file: string }> {
  const { rows } = await sql<{
    synchronous: number;
    journal_mode: string;
    file: string;
  }>`select s.synchronous, j.journal_mode, d.file from pragma_synchronous() as s, pragma_journal_mode() as j, pragma_database_list() as d where d.name = 'main'`.execute(
    db,
  );
  const row = rows[0];
  return {
    previous: Number(row?.synchronous ?? 2),
    wal: String(row?.journal_mode ?? "").toLowerCase() === "wal",
    file: String(row?.file ?? ""),
  };
}
