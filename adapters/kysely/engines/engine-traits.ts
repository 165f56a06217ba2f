import type { InsertQueryBuilder, Kysely, RawBuilder, SelectQueryBuilder } from "kysely";

/**
 * What differs between the database engines, as data: one object per engine (sqlite.ts,
 * postgres.ts, mysql.ts) instead of `engine === …` branches in the repositories. Adding a backend
 * means writing one more of these (docs/architecture.md, "Adding a storage backend").
 */
export interface EngineTraits {
  readonly name: "sqlite" | "postgres" | "mysql";
  readonly columns: ColumnTypes;
  /** One writer at a time (SQLite): a job claim is one UPDATE over a subquery, with nothing to lock or skip. */
  readonly oneWriter: boolean;
  /** UPDATE … RETURNING exists (not on MySQL, where the claimed rows are read back by their lease). */
  readonly updateReturning: boolean;
  /** A boolean as the driver binds it (better-sqlite3 cannot bind booleans). */
  encodeBoolean(value: boolean): boolean | number;
  /**
   * An INSERT that silently does nothing when a unique key is already taken. The row count then
   * says whether this caller inserted the row, which is how races are decided without a read.
   */
  insertIfAbsent<DB, TB extends keyof DB, O>(query: InsertQueryBuilder<DB, TB, O>): InsertQueryBuilder<DB, TB, O>;
  /** A read that locks its rows until the transaction ends (SQLite has one writer: no lock clause). */
  lockRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** A read that locks its rows and skips rows another transaction holds: how workers claim jobs. */
  claimRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** Runs `work` so that its commits need not wait for the disk where the engine sets that per connection (relaxed-durability.ts). */
  relaxedCommit<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  /** Inside a transaction: its commit need not wait for the disk, where the engine sets that per transaction. */
  relaxTransaction(trx: Parameters<RawBuilder<unknown>["execute"]>[0]): Promise<void>;
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
