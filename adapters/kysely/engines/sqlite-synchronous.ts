import { sql, type Kysely, type RawBuilder } from "kysely";

/** Whatever a raw statement runs on: a Kysely instance, a held connection or a transaction. */
type Runner = Parameters<RawBuilder<unknown>["execute"]>[0];

/**
 * SQLite's part of a relaxed commit (adapters/kysely/relaxed-durability.ts says why it is safe):
 * `synchronous` is a connection setting, so the work runs on the connection held for it, with
 * NORMAL set before and the previous level restored after. Only a WAL database at FULL (or
 * EXTRA) is relaxed: NORMAL is unsafe for a rollback journal, and a lower level is left alone.
 */
export function withSqliteNormalSync<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    const previous = await sqliteSynchronous(connection);
    const relax = previous >= 2 && (await sqliteJournalMode(connection)) === "wal";
    if (relax) await sql`PRAGMA synchronous = NORMAL`.execute(connection);
    try {
      return await work(connection);
    } finally {
      if (relax) await sql.raw(`PRAGMA synchronous = ${previous}`).execute(connection);
    }
  });
}

async function sqliteSynchronous(db: Runner): Promise<number> {
  const { rows } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db);
  return Number(rows[0]?.synchronous ?? 2);
}

async function sqliteJournalMode(db: Runner): Promise<string> {
  const { rows } = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(db);
  return String(rows[0]?.journal_mode ?? "").toLowerCase();
}
