import {
  type ExpressionBuilder,
  type InsertQueryBuilder,
  type Kysely,
  MysqlAdapter,
  PostgresAdapter,
  type RawBuilder,
  SqliteAdapter,
  sql,
} from "kysely";
import { FlagpostError } from "../../src/errors.js";

/**
 * Every difference between SQLite, PostgreSQL and MySQL/MariaDB that the adapter depends on lives
 * here: which engine an instance talks to, column types, and the "insert unless present" form.
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

export interface ColumnTypes {
  /** Text compared and ordered byte for byte (code-point order), case-sensitive, of up to `length` characters. */
  exactText(length: number): RawBuilder<unknown>;
  /** Free text of modest size (descriptions, names, JSON lists of scopes). */
  text: RawBuilder<unknown>;
  /** JSON documents that can reach megabytes (flag rules, stored responses). */
  longText: RawBuilder<unknown>;
  boolean: RawBuilder<unknown>;
  /** Epoch milliseconds and counters. */
  bigint: RawBuilder<unknown>;
  /** Appended to CREATE TABLE, or undefined. */
  tableOptions: RawBuilder<unknown> | undefined;
}

const COLUMN_TYPES: Record<Engine, ColumnTypes> = {
  // SQLite compares text with the BINARY collation by default: memcmp over UTF-8 = code-point order.
  sqlite: {
    exactText: () => sql`text`,
    text: sql`text`,
    longText: sql`text`,
    boolean: sql`integer`,
    bigint: sql`integer`,
    tableOptions: undefined,
  },
  // COLLATE "C" compares bytes, whatever collation the database was created with.
  postgres: {
    exactText: (length) => sql`varchar(${sql.raw(String(length))}) collate "C"`,
    text: sql`text`,
    longText: sql`text`,
    boolean: sql`boolean`,
    bigint: sql`bigint`,
    tableOptions: undefined,
  },
  // utf8mb4_bin orders by code point and is case-sensitive; the table default makes every text
  // column utf8mb4 even on a server whose default character set is latin1.
  mysql: {
    exactText: (length) => sql`varchar(${sql.raw(String(length))}) character set utf8mb4 collate utf8mb4_bin`,
    text: sql`text`,
    longText: sql`longtext`,
    boolean: sql`boolean`,
    bigint: sql`bigint`,
    tableOptions: sql`engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
  },
};

export function columnTypes(engine: Engine): ColumnTypes {
  return COLUMN_TYPES[engine];
}

/** better-sqlite3 cannot bind booleans; the other drivers can. */
export function encodeBoolean(engine: Engine, value: boolean): boolean | number {
  return engine === "sqlite" ? (value ? 1 : 0) : value;
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
  return engine === "mysql" ? query.ignore() : query.onConflict((conflict) => conflict.doNothing());
}
