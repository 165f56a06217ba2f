import { type CreateTableBuilder, type RawBuilder, sql } from "kysely";
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

/**
 * The end of an `INSERT … SELECT` into a table keyed by `id` that skips rows an interrupted run
 * already copied; any other error still fails the run (INSERT IGNORE would make it a warning).
 */
export function skipCopiedRows(engine: Engine, table: string): RawBuilder<unknown> {
  return engineTraits(engine).skipDuplicateId(table);
}

/**
 * The partial index of events that carry an experimentId (SQLite, PostgreSQL; MySQL has no partial
 * index and reads the experiment from the events' index). Its expressions MUST stay those of
 * experiment-repository.ts, or the planner does not use it (as in 0010-results-index).
 */
const EXPERIMENT_INDEX: Record<Engine, RawBuilder<unknown> | undefined> = {
  sqlite: sql`create index if not exists flagpost_events_experiment on flagpost_events (json_extract(properties, '$.experimentId'), user_id)
        where json_extract(properties, '$.experimentId') is not null`,
  postgres: sql`create index if not exists flagpost_events_experiment on flagpost_events ((properties::json ->> 'experimentId'), user_id)
        where (properties::json ->> 'experimentId') is not null`,
  mysql: undefined,
};

export async function createExperimentIndex(db: AnyKysely, engine: Engine): Promise<void> {
  await EXPERIMENT_INDEX[engine]?.execute(db);
}
