import type { CreateTableBuilder, RawBuilder } from "kysely";
import { columnTypes, type Engine, type AnyKysely } from "../dialect.js";
import { engineTraits } from "../engines/index.js";

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

/** CREATE INDEX IF NOT EXISTS, as the engine can (engines/: MySQL ignores "already there"). */
export async function createIndexIfAbsent(
  db: AnyKysely,
  engine: Engine,
  name: string,
  table: string,
  columns: string[],
): Promise<void> {
  await engineTraits(engine).createIndexIfAbsent(db, name, table, columns);
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
    if (!engineTraits(engine).isDuplicateColumn(error)) throw error;
  }
}
