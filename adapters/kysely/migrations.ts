import { type Migration, Migrator, sql } from "kysely";
import { exponential, retrying } from "../../src/jobs/backoff.js";
import type { Engine, AnyKysely } from "./dialect.js";
import { isSqliteBusy, isUndefinedSchema } from "./driver-errors.js";
import { initialMigration } from "./migrations/0001-initial.js";
import { eventsMigration } from "./migrations/0002-events.js";
import { emailsMigration } from "./migrations/0003-emails.js";
import { flagNotifyMigration } from "./migrations/0004-flag-notify.js";
import { webhooksMigration } from "./migrations/0008-webhooks.js";
import { flagGovernanceMigration } from "./migrations/0009-flag-governance.js";
import { experimentIndexMigration } from "./migrations/0010-results-index.js";
import { flagVariantsMigration } from "./migrations/0010-flag-variants.js";
import { flagSchedulesMigration } from "./migrations/0014-flag-schedules.js";
import { rateLimitsMigration } from "./migrations/0016-rate-limits.js";
import { compactEventsMigration } from "./migrations/0017-compact-events.js";
import { deliverabilityMigration } from "./migrations/0012-deliverability.js";
import { emailSummaryMigration } from "./migrations/0012-email-summary.js";

/**
 * The schema's history, oldest first. Names sort in the order they run; a released migration is
 * never edited, only followed by a new one.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  "0001-initial": initialMigration,
  "0002-events": eventsMigration,
  "0003-emails": emailsMigration,
  "0004-flag-notify": flagNotifyMigration,
  "0008-webhooks": webhooksMigration,
  "0009-flag-governance": flagGovernanceMigration,
  "0010-flag-variants": flagVariantsMigration,
  "0010-results-index": experimentIndexMigration,
  "0014-flag-schedules": flagSchedulesMigration,
  "0016-rate-limits": rateLimitsMigration,
  "0017-compact-events": compactEventsMigration,
  "0012-deliverability": deliverabilityMigration,
  "0012-email-summary": emailSummaryMigration,
};

export const MIGRATION_TABLE = "flagpost_migration";
export const MIGRATION_LOCK_TABLE = "flagpost_migration_lock";

/** How many times a SQLite migrator tries for the write lock while another connection holds it. */
const SQLITE_LOCK_ATTEMPTS = 20;
/** How many times the PostgreSQL migrator scans again after a schema vanished under its scan. */
const SCHEMA_SCAN_ATTEMPTS = 5;
/** Waits between SQLite lock attempts (and PostgreSQL scans): 50 ms doubling to 500 ms, equal jitter. */
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
 * Brings the schema up to the migration named `target`, included, and no further: how a test
 * prepares the schema a migration after it starts from (test/conformance/events-migration.test.ts).
 */
export async function migrateTo(db: AnyKysely, engine: Engine, target: string): Promise<void> {
  if (!(target in MIGRATIONS)) throw new Error(`no migration is named ${target}`);
  await migrate(db, engine, target);
}

async function migrate(db: AnyKysely, engine: Engine, target: string | undefined): Promise<void> {
  if (engine === "sqlite") {
    await db
      .connection()
      .execute((connection) => withSqliteWriteLock(connection, () => runMigrator(connection, engine, target)));
  } else if (engine === "postgres") {
    await withSchemaScanRetry(() => runMigrator(db, engine, target));
  } else {
    await runMigrator(db, engine, target);
  }
}

/**
 * kysely's Migrator looks for its own tables with an introspection query that calls
 * has_schema_privilege() on the name of every schema in the database. A schema that another
 * client drops while that query runs (another tenant's, another test run's) makes it fail with
 * 3F000 "schema … does not exist", naming a schema that is not ours. Nothing of ours is wrong:
 * the next scan no longer sees that schema. A missing schema of our own fails every attempt.
 */
function withSchemaScanRetry(work: () => Promise<void>): Promise<void> {
  return retrying(work, { attempts: SCHEMA_SCAN_ATTEMPTS, backoff: LOCK_BACKOFF, retryOn: isUndefinedSchema });
}

async function runMigrator(db: AnyKysely, engine: Engine, target: string | undefined): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...MIGRATIONS }) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    // Without a schema, kysely looks for its tables in every schema of a PostgreSQL database and
    // can mistake another schema's flagpost_migration for ours: pin it to the current one.
    migrationTableSchema: engine === "postgres" ? await currentSchema(db) : undefined,
    // On SQLite the run is already inside our own transaction.
    disableTransactions: engine === "sqlite",
    // Migrations are named by the feature that adds them, and features land in any order: a
    // database that already ran 0016 must still run a later-landed 0012. Each migration only
    // creates or alters its own tables and columns, so running the missing ones is safe.
    allowUnorderedMigrations: true,
  });
  const { error } = await (target === undefined ? migrator.migrateToLatest() : migrator.migrateTo(target));
  if (error) throw error;
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
