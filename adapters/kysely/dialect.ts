import {
  type ExpressionBuilder,
  type InsertQueryBuilder,
  type Kysely,
  MysqlAdapter,
  PostgresAdapter,
  SqliteAdapter,
} from "kysely";
import { FlagpostError } from "../../src/errors.js";
import type { ColumnTypes } from "./engines/engine-traits.js";
import { engineTraits } from "./engines/index.js";

/**
 * Every difference between SQLite, PostgreSQL and MySQL/MariaDB that the adapter depends on lives
 * here or in engines/: which engine an instance talks to, and that engine's traits.
 */

export type Engine = "sqlite" | "postgres" | "mysql";

/**
 * The database type of every Kysely instance flagpost takes. Each repository types its own rows
 * (tables.ts); the caller's instance may be typed for their own tables, so flagpost accepts any.
 * This is the one place the project writes `any` at a port: everything else says AnyKysely.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the single alias, explained above
export type AnyDatabase = any;
export type AnyKysely = Kysely<AnyDatabase>;
/** An expression builder over any jobs-shaped table (job-claims.ts). */
export type AnyExpressionBuilder = ExpressionBuilder<AnyDatabase, AnyDatabase>;

/**
 * The engine behind a Kysely instance, read from its dialect adapter, so that third-party dialects
 * built on kysely's adapters (libSQL, PGlite, …) are recognised too.
 */
export function detectEngine(db: AnyKysely): Engine {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof SqliteAdapter) return "sqlite";
  if (adapter instanceof PostgresAdapter) return "postgres";
  if (adapter instanceof MysqlAdapter) return "mysql";
  throw new FlagpostError(
    "validation_error",
    `kyselyStorage supports the SQLite, PostgreSQL and MySQL dialects; this Kysely instance uses ${adapter.constructor.name}`,
  );
}

export type { ColumnTypes } from "./engines/engine-traits.js";

/** The engine's column types (engines/). */
export function columnTypes(engine: Engine): ColumnTypes {
  return engineTraits(engine).columns;
}

/** better-sqlite3 cannot bind booleans; the other drivers can. */
export function encodeBoolean(engine: Engine, value: boolean): boolean | number {
  return engineTraits(engine).encodeBoolean(value);
}

/**
 * Turns an INSERT into one that silently does nothing when a unique key is already taken:
 * ON CONFLICT DO NOTHING on SQLite and PostgreSQL, INSERT IGNORE on MySQL. The row count then
 * says whether this caller inserted the row, which is how races are decided without a read.
 */
export function insertIfAbsent<DB, TB extends keyof DB, O>(
  engine: Engine,
  query: InsertQueryBuilder<DB, TB, O>,
): InsertQueryBuilder<DB, TB, O> {
  return engineTraits(engine).insertIfAbsent(query);
}
