import type {
  AliasedRawBuilder,
  Expression,
  InsertQueryBuilder,
  Kysely,
  RawBuilder,
  SelectQueryBuilder,
  SqlBool,
} from "kysely";
import type { AnyExpressionBuilder, AnyKysely } from "../dialect.js";

/**
 * What differs between the database engines, as data: one object per engine (sqlite.ts,
 * postgres.ts, mysql.ts) instead of `engine === …` branches in the repositories. Adding a backend
 * means writing one more of these (docs/architecture.md, "Adding a storage backend").
 */
export interface EngineTraits {
  readonly name: "sqlite" | "postgres" | "mysql";
  /** How error messages name the engine ("The PostgreSQL database could not …"). */
  readonly displayName: string;
  readonly columns: ColumnTypes;
  /** One writer at a time (SQLite): a job claim is one UPDATE over a subquery, with nothing to lock or skip. */
  readonly oneWriter: boolean;
  /** UPDATE … RETURNING exists (not on MySQL, where the claimed rows are read back by their lease). */
  readonly updateReturning: boolean;
  /** PostgreSQL's `uuid` column takes and gives an event id as text; the others hold its 16 bytes (row-codec.ts). */
  readonly nativeUuid: boolean;
  /**
   * How a batch of events is inserted (event-insert.ts), chosen by measurement (docs/events.md, "Ingestion"):
   * - "values": `insertInto().values(rows)`, compiled by kysely on every call;
   * - "template": the same multi-row INSERT, its SQL compiled once per row count and reused with
   *   fresh parameters (on SQLite as fast as raw prepared inserts: kysely's compile was the cost);
   * - "unnest" (PostgreSQL): `INSERT … SELECT * FROM unnest($1::varchar[], …)`, six array
   *   parameters whatever the row count, so the server parses a tiny statement (about 2× "values").
   */
  readonly eventInsert: "values" | "unnest" | "template";
  /** LIMIT is allowed inside an IN subquery (not on MySQL, which has DELETE … LIMIT instead). */
  readonly limitInSubquery: boolean;
  /** LISTEN/NOTIFY exists, so flag changes can be pushed to every process (postgres-flag-watch.ts). */
  readonly listenNotify: boolean;
  /** The database is a file a worker thread can open read-only for heavy reads (`heavyReads.sqliteFile`). */
  readonly fileDatabase: boolean;
  /** Hosts the shared rate limit's counters table (postgres-rate-limit.ts, migration 0016). */
  readonly sharedRateLimits: boolean;
  /** Tables live in a schema chosen by search_path, which the migrator must be pinned to (migrations.ts). */
  readonly schemas: boolean;
  /** Event properties as their column takes them (SQLite stores JSONB, migration 0017). */
  toJsonColumn(json: string): string | RawBuilder<string>;
  /** Event properties read back as JSON text, selected as `alias`. */
  fromJsonColumn<A extends string>(column: string, alias: A): AliasedRawBuilder<string, A>;
  /**
   * `column = value`, exactly: MySQL's binary collations are PAD SPACE ('a' = 'a '), so there the
   * byte lengths must match too (the index still serves the equality).
   */
  exactly(eb: AnyExpressionBuilder, column: string, value: string): Expression<SqlBool>;
  /**
   * How an event query filters on one name (event-repository.ts): its condition on `name_id`, and
   * whether the page is then ordered by name_id before (ts, id), the order of the (name_id, ts)
   * index. PostgreSQL needs both (postgres.ts); elsewhere a plain equality and (ts, id).
   */
  readonly eventName: {
    where(eb: AnyExpressionBuilder, nameId: number): Expression<SqlBool>;
    readonly orderByName: boolean;
  };
  /**
   * An INSERT that, when the row with `keys` exists, updates it with `set` instead. In `set`,
   * {@link incoming} names the value the INSERT carried and {@link greatest} the larger of two.
   */
  upsert<DB, TB extends keyof DB, O>(
    query: InsertQueryBuilder<DB, TB, O>,
    keys: readonly string[],
    set: Record<string, RawBuilder<unknown>>,
  ): InsertQueryBuilder<DB, TB, O>;
  /**
   * The end of an `INSERT … SELECT` into `table` (keyed by `id`) that skips rows whose id is there
   * already, any other error still failing it (MySQL's INSERT IGNORE would make it a warning).
   */
  skipDuplicateId(table: string): RawBuilder<unknown>;
  /** The value an upserting INSERT carried for `column`. */
  incoming(column: string): RawBuilder<unknown>;
  /** The larger of two values (a function name: greatest or max). */
  readonly greatest: RawBuilder<unknown>;
  /** A UNIQUE or PRIMARY KEY constraint refused the write (from the driver's codes only). */
  isUniqueViolation(error: unknown): boolean;
  /** The engine aborted a transaction to break a deadlock or a serialization conflict: running it again is safe. */
  isTransientConflict(error: unknown): boolean;
  /**
   * CREATE INDEX that leaves an existing index of that name alone, so a half-finished migration
   * can run again. MySQL lacks IF NOT EXISTS (MariaDB has it): there "already there" is ignored.
   */
  createIndexIfAbsent(db: AnyKysely, name: string, table: string, columns: readonly string[]): Promise<void>;
  /**
   * Gives the index the engine's default page fill again (PostgreSQL: RESET (fillfactor), which
   * keeps 10% of a page free when it splits); nothing where the engine has no such setting.
   */
  resetIndexFill(db: AnyKysely, index: string): Promise<void>;
  /**
   * Keeps the index's pages full when they split (PostgreSQL: fillfactor 100), for an index whose
   * entries arrive in key order; nothing where the engine has no such setting.
   */
  packIndex(db: AnyKysely, index: string): Promise<void>;
  /**
   * The columns of `table` in the connection's own schema (SQLite's pragma, information_schema on
   * the servers), each with its declared type: how a migration tells which layout a table has.
   */
  tableColumns(table: string): RawBuilder<{ name: string; type: string }>;
  /**
   * ADD COLUMN failed because the column exists: MySQL cannot roll DDL back, so a rerun meets the
   * columns of an interrupted run; elsewhere the migration's transaction or write lock covers it.
   */
  isDuplicateColumn(error: unknown): boolean;
  /** A boolean as the driver binds it (better-sqlite3 cannot bind booleans). */
  encodeBoolean(value: boolean): boolean | number;
  /**
   * An INSERT that silently does nothing when a unique key is already taken. The row count then
   * says whether this caller inserted the row, which is how races are decided without a read.
   */
  insertIfAbsent<DB, TB extends keyof DB, O>(query: InsertQueryBuilder<DB, TB, O>): InsertQueryBuilder<DB, TB, O>;
  /**
   * `column` as a WHERE term the planner will not answer from an index on it. For an UPDATE of an
   * id list that also re-checks `status`: SQLite, without statistics, prefers the equality on
   * the (status, next_attempt_at) index over the primary key's IN list, and so walks every queued
   * email (the whole backlog) to change 20; its unary `+` leaves the value as it is but takes the
   * term off the index. PostgreSQL, before its statistics come in, ANDs a bitmap of that whole
   * index run with the primary key's: an expression (coalesce of the column with itself) keeps it
   * to the key. MySQL takes no such list in one UPDATE (no RETURNING): the column as it is.
   */
  notIndexed<T>(column: string): RawBuilder<T>;
  /** A read that locks its rows until the transaction ends (SQLite has one writer: no lock clause). */
  lockRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** A read that locks its rows and skips rows another transaction holds: how workers claim jobs. */
  claimRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** Runs `work` so that its commits need not wait for the disk where the engine sets that per connection (relaxed-durability.ts). */
  relaxedCommit<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  /**
   * Runs `work` (a commit that must survive a power loss, such as an acceptance) so that its
   * commits are on disk when the promise resolves, waiting for the disk off the event loop where
   * the engine allows it (SQLite: sqlite-synchronous.ts); the other engines commit as they are.
   */
  syncedCommit<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  /**
   * `db` runs no more synced commits (its storage closes): what syncedCommit kept open for it
   * between commits is closed (SQLite: the WAL file's descriptor); nothing elsewhere.
   */
  releaseSyncedCommits<DB>(db: Kysely<DB>): Promise<void>;
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
  /** Raw bytes of up to a few MiB (a slice of an email's content). */
  bytes: RawBuilder<unknown>;
  /** Appended to CREATE TABLE, or undefined. */
  tableOptions: RawBuilder<unknown> | undefined;
}
