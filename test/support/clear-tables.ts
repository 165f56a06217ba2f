import { type Kysely, sql } from "kysely";
import type { Backend } from "./databases.js";

/**
 * `TestDatabase.clear()`: empties every `flagpost_` table except the migration bookkeeping and
 * sets the counters of `flagpost_meta` back to 0. The storage suites call it before every test
 * (hundreds of times per file on a server), so it is built to be cheap once it has run once.
 *
 * The first clear of a database empties the tables round by round (a table referenced by a
 * foreign key empties only after the tables that reference it) and remembers the order that
 * worked. Later clears, while the same tables exist, empty them in that order in one transaction:
 * one commit (one fsync) instead of one per table, and on PostgreSQL one round trip (statements
 * sent together as one simple query, which runs as one transaction). If that fails (a table was
 * added, a key changed) the clear goes round by round again and learns the new order.
 */

const BOOKKEEPING = new Set(["flagpost_migration", "flagpost_migration_lock"]);

/** The order that emptied each database's tables last time, by its Kysely instance. */
const orders = new WeakMap<Kysely<any>, readonly string[]>();

export async function clearTables(backend: Backend, db: Kysely<any>): Promise<void> {
  const tables = await flagpostTables(backend, db);
  const known = orders.get(db);
  if (known && known.length === tables.length && tables.every((table) => known.includes(table))) {
    const emptied = await emptyInOrder(backend, db, known).then(
      () => true,
      () => false,
    );
    if (emptied) return;
  }
  orders.set(db, await emptyRoundByRound(db, tables));
}

async function flagpostTables(backend: Backend, db: Kysely<any>): Promise<string[]> {
  const pattern = "flagpost\\_%";
  const query =
    backend === "sqlite"
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name like ${pattern} escape '\\'`
      : backend === "postgres"
        ? sql<{
            name: string;
          }>`select tablename as name from pg_tables where schemaname = current_schema() and tablename like ${pattern}`
        : sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = database() and table_name like ${pattern}`;
  const { rows } = await query.execute(db);
  return rows.map((row) => row.name).filter((name) => !BOOKKEEPING.has(name));
}

/** One table emptied: its rows deleted, or flagpost_meta's counters set to 0. */
function emptyOne(db: Kysely<any>, table: string) {
  // 0 as a literal, not a parameter: PostgreSQL's clear sends the statements as one simple query.
  return table === "flagpost_meta" ? db.updateTable(table).set({ value: sql.lit(0) }) : db.deleteFrom(table);
}

async function emptyInOrder(backend: Backend, db: Kysely<any>, order: readonly string[]): Promise<void> {
  if (backend === "postgres") {
    // Without parameters pg sends the text as a simple query: several statements, one transaction.
    const text = order.map((table) => emptyOne(db, table).compile().sql).join(";\n");
    await sql.raw(text).execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    for (const table of order) await emptyOne(trx, table).execute();
  });
}

/** Empties `tables` round by round until none is left; returns the order in which they emptied. */
async function emptyRoundByRound(db: Kysely<any>, tables: readonly string[]): Promise<string[]> {
  const order: string[] = [];
  let pending = [...tables];
  while (pending.length > 0) {
    const failed: string[] = [];
    let lastError: unknown;
    for (const table of pending) {
      try {
        await emptyOne(db, table).execute();
        order.push(table);
      } catch (error) {
        failed.push(table);
        lastError = error;
      }
    }
    if (failed.length === pending.length) throw lastError;
    pending = failed;
  }
  return order;
}
