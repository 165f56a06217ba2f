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
    const { previous, wal } = await sqliteDurability(connection);
    const relax = previous >= 2 && wal;
    if (relax) await sql`PRAGMA synchronous = NORMAL`.execute(connection);
    try {
      return await work(connection);
    } finally {
      if (relax) await sql.raw(`PRAGMA synchronous = ${previous}`).execute(connection);
    }
  });
}

/**
 * The connection's synchronous level and whether it is in WAL mode, in one statement (the pragma
 * table functions): read on every relaxed commit, not remembered, so a level changed on the
 * connection meanwhile is the one restored. Three statements per relaxed commit instead of four.
 */
async function sqliteDurability(db: Runner): Promise<{ previous: number; wal: boolean }> {
  const { rows } = await sql<{
    synchronous: number;
    journal_mode: string;
  }>`select s.synchronous, j.journal_mode from pragma_synchronous() as s, pragma_journal_mode() as j`.execute(db);
  const row = rows[0];
  return {
    previous: Number(row?.synchronous ?? 2),
    wal: String(row?.journal_mode ?? "").toLowerCase() === "wal",
  };
}
