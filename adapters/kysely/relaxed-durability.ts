import type { Kysely, RawBuilder } from "kysely";
import type { Engine } from "./dialect.js";
import { engineTraits } from "./engines/index.js";

/** Whatever a raw statement runs on: a Kysely instance, a held connection or a transaction. */
type Runner = Parameters<RawBuilder<unknown>["execute"]>[0];

/**
 * Claims and outcomes may be lost in an OS crash or power loss (issue 30, decision 1): delivery
 * is at least once, so a lost claim only means the email is claimed again, and a lost outcome
 * that it is sent again with the same Message-ID. Acceptance stays durable. This module runs a
 * claim's or an outcome's work with a commit that does not wait for the disk; each engine says
 * how (engines/*.ts, `relaxedCommit` and `relaxTransaction`).
 *
 * - SQLite: NORMAL instead of FULL on the connection held for the work. In WAL mode this is safe
 *   for the commits around it: NORMAL only skips the WAL fsync at commit; frames are still
 *   appended in order, so the next FULL commit (an acceptance) syncs the WAL up to and including
 *   itself, and every earlier relaxed commit with it. A power loss can therefore lose only the
 *   relaxed commits after the last FULL one, never an acceptance; the WAL's checksums make a torn
 *   tail be dropped on recovery.
 * - PostgreSQL: `SET LOCAL synchronous_commit = off` in the transaction; it ends with it.
 * - MySQL: unchanged. InnoDB's flush policy (innodb_flush_log_at_trx_commit) is global, not per
 *   session, so every commit keeps the server's setting (durable at the default of 1).
 */
export function withRelaxedCommit<DB, T>(
  db: Kysely<DB>,
  engine: Engine,
  work: (db: Kysely<DB>) => Promise<T>,
): Promise<T> {
  return engineTraits(engine).relaxedCommit(db, work);
}

/** Inside a transaction: its commit does not wait for the disk, where the engine allows it per transaction. */
export async function relaxTransaction(trx: Runner, engine: Engine): Promise<void> {
  await engineTraits(engine).relaxTransaction(trx);
}
