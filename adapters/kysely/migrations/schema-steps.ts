import type { CreateTableBuilder, RawBuilder } from "kysely";
import { columnTypes, type Engine, type AnyKysely } from "../dialect.js";
import { isColumnAlreadyThere, isIndexAlreadyThere } from "../driver-errors.js";

/**
 * Schema steps that can run again over a half-finished migration. MySQL cannot roll DDL back and
 * lacks IF NOT EXISTS for indexes and columns, so there "already there" is recognised and ignored;
 * elsewhere the migration's transaction (PostgreSQL) or write lock (SQLite) covers the run.
 */

/** CREATE TABLE IF NOT EXISTS, with the engine's table options (MySQL: utf8mb4, binary collation). */
export function createTableIfAbsent<TB extends string>(
  db: AnyKysely,
  engine: Engine,
  name: TB,
): CreateTableBuilder<TB, never> {
  const builder = db.schema.createTable(name).ifNotExists();
  const options = columnTypes(engine).tableOptions;
  return options ? builder.modifyEnd(options) : builder;
}

/** CREATE INDEX IF NOT EXISTS, which MySQL lacks (MariaDB has it): there, "already there" is ignored. */
export async function createIndexIfAbsent(
  db: AnyKysely,
  engine: Engine,
  name: string,
  table: string,
  columns: string[],
): Promise<void> {
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
export async function addColumnIfAbsent(
  db: AnyKysely,
  engine: Engine,
  table: string,
  column: string,
  type: RawBuilder<unknown>,
): Promise<void> {
  try {
    await db.schema.alterTable(table).addColumn(column, type).execute();
  } catch (error) {
    if (engine !== "mysql" || !isColumnAlreadyThere(error)) throw error;
  }
}
