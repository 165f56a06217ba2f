import type { Kysely, RawBuilder } from "kysely";
import type { Engine } from "../dialect.js";
import { isColumnAlreadyThere, isIndexAlreadyThere } from "../driver-errors.js";

/**
 * Schema steps that can run again over a half-finished migration. MySQL cannot roll DDL back and
 * lacks IF NOT EXISTS for indexes and columns, so there "already there" is recognised and ignored;
 * elsewhere the migration's transaction (PostgreSQL) or write lock (SQLite) covers the run.
 */

export async function createIndexIfAbsent(db: Kysely<any>, engine: Engine, name: string, table: string, columns: string[]): Promise<void> {
  if (engine !== "mysql") {
    await db.schema.createIndex(name).ifNotExists().on(table).columns(columns).execute();
    return;
  }
  try {
    await db.schema.createIndex(name).on(table).columns(columns).execute();
  } catch (error) {
    if (!isIndexAlreadyThere(error)) throw error;
  }
}

/** Adds a nullable column. */
export async function addColumnIfAbsent(db: Kysely<any>, engine: Engine, table: string, column: string, type: RawBuilder<unknown>): Promise<void> {
  try {
    await db.schema.alterTable(table).addColumn(column, type).execute();
  } catch (error) {
    if (engine !== "mysql" || !isColumnAlreadyThere(error)) throw error;
  }
}
