import type { Kysely, RawBuilder } from "kysely";
import type { Engine } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import { noteHeldConnection } from "./transaction.js";

/** Whatever a raw statement runs on: a Kysely instance, a held connection or a transaction. */
type Runner = Parameters<RawBuilder<unknown>["execute"]>[0];

/**
 * Claims and outcomes may be lost in an OS crash or power loss (issue 30, decision 1): delivery
 * is at least once, so a lost claim only means the email is claimed again, and a lost outcome
 * that it is sent again with the same Message-ID. Acceptance stays durable. This module runs a
 * claim's or an outcome's work with a commit that does not wait for the disk, and an acceptance
 * with one that is on disk before it resolves; each engine says how (engines/*.ts,
 * `relaxedCommit`, `relaxTransaction` and `syncedCommit`).
 *
 * - SQLite: NORMAL instead of FULL on the connection held for the work. In WAL mode this is safe
 *   for the commits around it: NORMAL only skips the WAL fsync at commit; frames are still
 *   appended in order, so a sync of the WAL after a commit covers it and every earlier commit.
 *   An acceptance commits at NORMAL too, and is answered only after an fdatasync of the WAL file
 *   that started after its commit, run on libuv's thread pool (engines/sqlite-wal-sync.ts): the
 *   same guarantee as FULL, whose commit runs that sync itself, on the event loop. A power loss
 *   can therefore lose only commits no caller was answered for, never an answered acceptance;
 *   the WAL's checksums make a torn tail be dropped on recovery.
 * - PostgreSQL: `SET LOCAL synchronous_commit = off` in the transaction; it ends with it.
 * - MySQL: unchanged. InnoDB's flush policy (innodb_flush_log_at_trx_commit) is global, not per
 *   session, so every commit keeps the server's setting (durable at the default of 1).
 */
export const withRelaxedCommit: HeldCommit = onHeldConnection("relaxedCommit");

/** An acceptance's work: its commit is on disk once this resolves (docs/reliability.md, "Durability of each commit"). */
export const withSyncedCommit: HeldCommit = onHeldConnection("syncedCommit");

type HeldCommit = <DB, T>(db: Kysely<DB>, engine: Engine, work: (db: Kysely<DB>) => Promise<T>) => Promise<T>;

/** The engine's way to run such work, on a connection held from `db` whose committed deliveries still wake `db`'s listeners (transaction.ts). */
function onHeldConnection(how: "relaxedCommit" | "syncedCommit"): HeldCommit {
  return (db, engine, work) =>
    engineTraits(engine)[how](db, (connection) => {
      noteHeldConnection(connection, db);
      return work(connection);
    });
}

/** Inside a transaction: its commit does not wait for the disk, where the engine allows it per transaction. */
export async function relaxTransaction(trx: Runner, engine: Engine): Promise<void> {
  await engineTraits(engine).relaxTransaction(trx);
}
