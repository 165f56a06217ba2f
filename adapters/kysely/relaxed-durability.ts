import { sql, type Kysely, type RawBuilder } from "kysely";

/** Whatever a raw statement runs on: a Kysely instance, a held connection or a transaction. */
type Runner = Parameters<RawBuilder<unknown>["execute"]>[0];
import type { Engine } from "./dialect.js";

/**
 * Claims and outcomes may be lost in an OS crash or power loss (issue 30, decision 1): delivery
 * is at least once, so a lost claim only means the email is claimed again, and a lost outcome
 * that it is sent again with the same Message-ID. Acceptance stays durable. This module runs a
 * claim's or an outcome's work with a commit that does not wait for the disk.
 *
 * - SQLite: `synchronous` is a connection setting, so the work runs on the connection held for
 *   it, with NORMAL set before and the previous level restored after. In WAL mode this is safe
 *   for the commits around it: NORMAL only skips the WAL fsync at commit; frames are still
 *   appended in order, so the next FULL commit (an acceptance) syncs the WAL up to and including
 *   itself, and every earlier relaxed commit with it. A power loss can therefore lose only the
 *   relaxed commits after the last FULL one, never an acceptance; the WAL's checksums make a torn
 *   tail be dropped on recovery. A connection already below FULL (or not in WAL) is left as it is.
 * - PostgreSQL: `SET LOCAL synchronous_commit = off` in the transaction; it ends with it.
 * - MySQL: unchanged. InnoDB's flush policy (innodb_flush_log_at_trx_commit) is global, not per
 *   session, so every commit keeps the server's setting (durable at the default of 1).
 */
export async function withRelaxedCommit<DB, T>(
  db: Kysely<DB>,
  engine: Engine,
  work: (db: Kysely<DB>) => Promise<T>,
): Promise<T> {
  if (engine !== "sqlite") return work(db);
  return db.connection().execute(async (connection) => {
    const previous = await sqliteSynchronous(connection);
    // Only a WAL database at FULL (or EXTRA) is relaxed: NORMAL is unsafe for a rollback journal.
    const relax = previous >= 2 && (await sqliteJournalMode(connection)) === "wal";
    if (relax) await sql`PRAGMA synchronous = NORMAL`.execute(connection);
    try {
      return await work(connection);
    } finally {
      if (relax) await sql.raw(`PRAGMA synchronous = ${previous}`).execute(connection);
    }
  });
}

/** Inside a PostgreSQL transaction: its commit does not wait for the WAL flush. */
export async function relaxTransaction(trx: Runner, engine: Engine): Promise<void> {
  if (engine === "postgres") await sql`SET LOCAL synchronous_commit = off`.execute(trx);
}

async function sqliteSynchronous(db: Runner): Promise<number> {
  const { rows } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db);
  return Number(rows[0]?.synchronous ?? 2);
}

async function sqliteJournalMode(db: Runner): Promise<string> {
  const { rows } = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(db);
  return String(rows[0]?.journal_mode ?? "").toLowerCase();
}
