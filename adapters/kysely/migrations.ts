import { type DatabaseIntrospector, type Migration, Migrator, sql } from "kysely";
import { exponential, retrying } from "../../src/jobs/index.js";
import type { Engine, AnyKysely } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import { isSqliteBusy } from "./driver-errors.js";
import { baselineMigration } from "./migrations/0001-baseline.js";
import { LEGACY_STEPS } from "./migrations/legacy-history.js";
import { domainsMigration } from "./migrations/0019-domains.js";
import { domainReputationMigration } from "./migrations/0020-domain-reputation.js";
import { activityIndexesMigration } from "./migrations/0021-activity-indexes.js";
import { eventNamesMigration } from "./migrations/0022-event-names.js";
import { emailContentSlicesMigration } from "./migrations/0023-email-content-slices.js";
import { eventIndexFillMigration } from "./migrations/0024-event-index-fill.js";

/**
 * The schema's history, oldest first: the baseline (issue 26), then one migration per change,
 * named `NNNN-topic` with a number above every existing one, so names sort in the order they run
 * (a later-landed migration takes the next free number). A released migration is never edited,
 * only followed by a new one.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  "0001-baseline": baselineMigration,
  "0019-domains": domainsMigration,
  "0020-domain-reputation": domainReputationMigration,
  "0021-activity-indexes": activityIndexesMigration,
  "0022-event-names": eventNamesMigration,
  "0023-email-content-slices": emailContentSlicesMigration,
  "0024-event-index-fill": eventIndexFillMigration,
};

export const MIGRATION_TABLE = "flagpost_migration";
export const MIGRATION_LOCK_TABLE = "flagpost_migration_lock";

/** How many times a SQLite migrator tries for the write lock while another connection holds it. */
const SQLITE_LOCK_ATTEMPTS = 20;
/** Waits between SQLite lock attempts: 50 ms doubling to 500 ms, equal jitter. */
const LOCK_BACKOFF = exponential(50, 500, "equal");

/**
 * Brings the schema to the latest migration. Safe when several processes call it at once:
 * kysely's Migrator serialises them with an advisory lock on PostgreSQL and GET_LOCK on MySQL.
 * On SQLite, whose kysely adapter takes no lock (it counts on there being one connection), the
 * whole run holds the instance's connection and the database's write lock (BEGIN IMMEDIATE), so
 * another process, or another call on this instance, waits and then finds nothing to do.
 */
export async function migrateToLatest(db: AnyKysely, engine: Engine): Promise<void> {
  await migrate(db, engine, undefined);
}

/**
 * The migrations in MIGRATIONS that `db` has not run, in order. Without the bookkeeping table,
 * every one of them, once a bare `select 1` shows the database itself answers (otherwise that
 * error is thrown: the database is down, not unmigrated).
 */
export async function pendingMigrations(db: AnyKysely): Promise<string[]> {
  let ran: Set<string>;
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
    ran = new Set(rows.map((row) => row.name));
  } catch (error) {
    await sql`select 1`.execute(db).catch(() => Promise.reject(error));
    ran = new Set();
  }
  return Object.keys(MIGRATIONS).filter((name) => !ran.has(name));
}

/**
 * Brings the schema up to the migration named `target`, included, and no further: how a test
 * prepares the schema a migration after it starts from (test/conformance/events-migration.test.ts).
 */
export async function migrateTo(db: AnyKysely, engine: Engine, target: string): Promise<void> {
  if (!(target in MIGRATIONS) && !(target in LEGACY_STEPS)) throw new Error(`no migration is named ${target}`);
  await migrate(db, engine, target);
}

async function migrate(db: AnyKysely, engine: Engine, target: string | undefined): Promise<void> {
  if (engineTraits(engine).oneWriter) {
    await db
      .connection()
      .execute((connection) => withSqliteWriteLock(connection, () => migrateHeld(connection, engine, target)));
  } else {
    await migrateHeld(db, engine, target);
  }
}

async function migrateHeld(db: AnyKysely, engine: Engine, target: string | undefined): Promise<void> {
  // A target in the old history prepares the state a test of an old migration starts from.
  if (target !== undefined && target in LEGACY_STEPS) return runMigrator(db, engine, LEGACY_STEPS, target);
  await adoptLegacyHistory(db, engine);
  await runMigrator(db, engine, MIGRATIONS, target);
}

/**
 * A database that ran some or all of the history before the baseline: the steps it missed run
 * (under the Migrator's lock, as before), then its bookkeeping rows give way to one baseline row.
 * A crash between the delete and the insert leaves no row of either kind: the baseline then
 * runs over the full schema, which its steps allow (each is safe to run again).
 */
async function adoptLegacyHistory(db: AnyKysely, engine: Engine): Promise<void> {
  const legacy = Object.keys(LEGACY_STEPS);
  const ran = await ranMigrations(db);
  if (ran.has("0001-baseline") || !legacy.some((name) => ran.has(name))) return;
  await runMigrator(db, engine, LEGACY_STEPS, undefined);
  const { numDeletedRows } = await db.deleteFrom(MIGRATION_TABLE).where("name", "in", legacy).executeTakeFirstOrThrow();
  // Another process adopting at the same time deleted the rows first and records the baseline.
  if (numDeletedRows === 0n) return;
  await db.insertInto(MIGRATION_TABLE).values({ name: "0001-baseline", timestamp: new Date().toISOString() }).execute();
}

async function ranMigrations(db: AnyKysely): Promise<Set<string>> {
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
    return new Set(rows.map((row) => row.name));
  } catch {
    return new Set(); // no bookkeeping table yet: a fresh database
  }
}

async function runMigrator(
  db: AnyKysely,
  engine: Engine,
  migrations: Readonly<Record<string, Migration>>,
  target: string | undefined,
): Promise<void> {
  // Without a schema, kysely looks for its tables in every schema of a PostgreSQL database and
  // can mistake another schema's flagpost_migration for ours: pin it to the current one.
  const schema = engineTraits(engine).schemas ? await currentSchema(db) : undefined;
  const migrator = new Migrator({
    db: schema === undefined ? db : withOwnSchemaIntrospection(db, schema),
    provider: { getMigrations: async () => ({ ...migrations }) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    migrationTableSchema: schema,
    // On SQLite the run is already inside our own transaction.
    disableTransactions: engineTraits(engine).oneWriter,
    // Since the baseline, names are numbered in landing order; only the frozen old history,
    // whose features landed out of order (0016 ran before 0012 on some databases), runs unordered.
    allowUnorderedMigrations: migrations === LEGACY_STEPS,
  });
  const { error } = await (target === undefined ? migrator.migrateToLatest() : migrator.migrateTo(target));
  if (error) throw error;
}

/**
 * `db` as the Migrator sees it, with an introspector that looks at `schema` alone. kysely's own
 * PostgreSQL introspector lists every table of every schema and calls has_schema_privilege() on
 * each schema's name; a schema another client drops while that query runs (another tenant's,
 * another test run's) fails it with 3F000, naming a schema that is not ours. The Migrator only
 * asks whether its two tables and its schema exist, which these catalog reads by name answer
 * without calling any function on another schema.
 */
function withOwnSchemaIntrospection(db: AnyKysely, schema: string): AnyKysely {
  const tables = async () => {
    const { rows } = await sql<{ name: string; schema: string }>`
      select c.relname as name, n.nspname as schema from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v')`.execute(db);
    return rows.map((row) => ({ ...row, isView: false, columns: [] }));
  };
  const introspection: DatabaseIntrospector = {
    getSchemas: async () =>
      (
        await sql<{
          name: string;
        }>`select nspname as name from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db)
      ).rows,
    getTables: tables,
    getMetadata: async () => ({ tables: await tables() }),
  };
  // Everything else is the instance itself (methods bound to it: Kysely keeps its state in private fields).
  return new Proxy(db, {
    get(target, property) {
      if (property === "introspection") return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function currentSchema(db: AnyKysely): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error("PostgreSQL has no current schema: check the connection's search_path");
  return schema;
}

/**
 * Runs `work` inside BEGIN IMMEDIATE … COMMIT on `connection`. busy_timeout already waits for
 * another process's lock; the retries cover a second connection in this same process, whose lock
 * cannot be released while better-sqlite3 waits synchronously.
 */
async function withSqliteWriteLock(connection: AnyKysely, work: () => Promise<void>): Promise<void> {
  await retrying(() => sql`begin immediate`.execute(connection), {
    attempts: SQLITE_LOCK_ATTEMPTS,
    backoff: LOCK_BACKOFF,
    retryOn: isSqliteBusy,
  });
  try {
    await work();
    await sql`commit`.execute(connection);
  } catch (error) {
    await sql`rollback`.execute(connection).catch(() => undefined);
    throw error;
  }
}
