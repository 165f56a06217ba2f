import type { Kysely } from "kysely";
import { FlagpostError } from "../../src/errors.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { KyselyActivityRepository } from "./activity-repository.js";
import { KyselyApiKeyRepository } from "./api-key-repository.js";
import { KyselyDeliveryReportRepository } from "./delivery-report-repository.js";
import { detectEngine, type AnyKysely, type Engine } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import { KyselyDomainRepository } from "./domain-repository.js";
import { KyselyEmailRepository } from "./email-repository.js";
import { toStorageError, withSqliteFile } from "./driver-errors.js";
import { translatedRepository } from "./storage-errors.js";
import { KyselyEventRepository } from "./event-repository.js";
import { KyselyFlagHistoryRepository } from "./flag-history-repository.js";
import { KyselyFlagInsightRepository } from "./flag-insights-repository.js";
import { KyselyExperimentRepository } from "./experiment-repository.js";
import { KyselyFlagRepository } from "./flag-repository.js";
import { KyselyFlagScheduleRepository } from "./flag-schedule-repository.js";
import { sqliteHeavyReadThread } from "./heavy-read-thread.js";
import { heavyExperiments, heavyReaderOver, heavyRoutedEvents, type HeavyReader } from "./heavy-reads.js";
import { KyselyIdempotencyRepository } from "./idempotency-repository.js";
import { migrateToLatest, pendingMigrations } from "./migrations.js";
import { type PgListenConnect, watchPostgresFlags } from "./postgres-flag-watch.js";
import { KyselySettingsRepository } from "./settings-repository.js";
import { KyselySuppressionRepository } from "./suppression-repository.js";
import type { FlagpostTables } from "./tables.js";
import { kyselyTransactions } from "./unit-of-work.js";
import { KyselyWebhookDeliveryRepository } from "./webhook-delivery-repository.js";
import { KyselyWebhookRepository } from "./webhook-repository.js";

export interface KyselyStorageOptions {
  /**
   * Destroy the Kysely instance (and so its pool or SQLite handle) when the storage is closed.
   * Default false: the caller built the instance and keeps ownership of it.
   */
  destroyOnClose?: boolean;
  /**
   * PostgreSQL only: opens a dedicated connection on which flagpost LISTENs for flag changes, so
   * every process's `isEnabled` snapshot refreshes right after a write anywhere (otherwise each
   * process polls the flags revision, every second by default). Kysely does not hand out its
   * pool, so pass how to connect: `() => pool.connect()` with the pool you gave PostgresDialect
   * (it keeps one slot), or a factory that connects a separate `pg.Client`. See docs/flags.md.
   */
  listen?: PgListenConnect;
  /**
   * Where heavy reads run (experiment results, event queries over more than 24 hours), so they
   * never take the connections, or on SQLite the event loop, that ingestion and evaluation need:
   * another Kysely instance on the same database with a small pool of its own (PostgreSQL,
   * MySQL/MariaDB), or `{ sqliteFile }`: the SQLite file, read in a worker thread over a read-only
   * connection of its own (the file must be in WAL mode). Unset: they run on `db`. See
   * docs/storage.md, "Heavy reads".
   */
  heavyReads?: AnyKysely | { sqliteFile: string };
}

/**
 * Storage over a Kysely instance the caller builds, on SQLite (better-sqlite3), PostgreSQL (pg)
 * or MySQL/MariaDB (mysql2); the engine is read from the instance's dialect adapter. Tables are
 * prefixed `flagpost_` and created by `migrate()`; on PostgreSQL they go into the connection's
 * current schema (set search_path to choose it). The instance's plugins are not applied to
 * flagpost's queries. For SQLite, open the database in WAL mode with a busy_timeout (see
 * docs/storage.md).
 */
export function kyselyStorage(db: AnyKysely, options: KyselyStorageOptions = {}): Storage {
  const engine = detectEngine(db);
  // The caller's plugins (CamelCasePlugin, withSchema, …) would rename our columns and tables.
  const own = db.withoutPlugins();
  const typed = own as Kysely<FlagpostTables>;
  let closing: Promise<void> | undefined;
  const listen = options.listen;
  if (listen && !engineTraits(engine).listenNotify) {
    throw new FlagpostError("validation_error", `"listen" is for PostgreSQL; this Kysely instance uses ${engine}`, {
      details: [{ path: "listen", message: "is for PostgreSQL only" }],
    });
  }
  const watchers = new Set<{ close(): Promise<void> }>();
  const heavy = heavyReaderFor(engine, options);
  const events = translatedRepository(engine, KyselyEventRepository, typed, engine);
  return {
    name: engine,
    flags: translatedRepository(engine, KyselyFlagRepository, typed),
    transaction: kyselyTransactions(typed, engine),
    flagHistory: translatedRepository(engine, KyselyFlagHistoryRepository, typed),
    flagSchedules: translatedRepository(engine, KyselyFlagScheduleRepository, typed, engine),
    flagInsights: translatedRepository(engine, KyselyFlagInsightRepository, typed, engine),
    apiKeys: translatedRepository(engine, KyselyApiKeyRepository, typed, engine),
    idempotency: translatedRepository(engine, KyselyIdempotencyRepository, typed, engine),
    events: heavy ? heavyRoutedEvents(events, heavy) : events,
    emails: translatedRepository(engine, KyselyEmailRepository, typed, engine),
    suppressions: translatedRepository(engine, KyselySuppressionRepository, typed, engine),
    settings: translatedRepository(engine, KyselySettingsRepository, typed, engine),
    deliveryReports: translatedRepository(engine, KyselyDeliveryReportRepository, typed, engine),
    webhooks: translatedRepository(engine, KyselyWebhookRepository, typed, engine),
    webhookDeliveries: translatedRepository(engine, KyselyWebhookDeliveryRepository, typed, engine),
    domains: translatedRepository(engine, KyselyDomainRepository, typed, engine),
    activity: translatedRepository(engine, KyselyActivityRepository, typed),
    experiments: heavy
      ? heavyExperiments(heavy)
      : translatedRepository(engine, KyselyExperimentRepository, typed, engine),
    migrate: () =>
      migrateToLatest(own, engine).catch(async (error: unknown) => {
        // withSqliteFile names the database file only for SQLite's file-level errors.
        throw await withSqliteFile(own, toStorageError(engine, "migrate the flagpost schema", error));
      }),
    pendingMigrations: () =>
      pendingMigrations(own).catch((error: unknown) => {
        throw toStorageError(engine, "read which migrations ran", error);
      }),
    ...(listen && {
      watchFlags(listener) {
        const watcher = watchPostgresFlags(own, listen, listener);
        const tracked = { close: () => (watchers.delete(tracked), watcher.close()) };
        watchers.add(tracked);
        return tracked;
      },
    }),
    close() {
      closing ??= (async () => {
        await Promise.allSettled(
          [...watchers]
            .map((watcher) => watcher.close())
            .concat(heavy?.close() ?? [])
            // Before the database closes: SQLite deletes the WAL file on its last close.
            .concat(engineTraits(engine).releaseSyncedCommits(typed)),
        );
        if (options.destroyOnClose) await db.destroy();
      })();
      return closing;
    },
  };
}

/** The heavy reader the options name: a worker thread this storage owns, or the caller's instance. */
function heavyReaderFor(engine: Engine, options: KyselyStorageOptions): HeavyReader | undefined {
  const target = options.heavyReads;
  if (target === undefined) return undefined;
  if ("sqliteFile" in target) {
    if (!engineTraits(engine).fileDatabase) throw wrongEngine("heavyReads.sqliteFile", "is for SQLite", engine);
    return sqliteHeavyReadThread(target.sqliteFile);
  }
  const heavyEngine = detectEngine(target);
  if (heavyEngine !== engine) throw wrongEngine("heavyReads", `must use ${engine} too`, heavyEngine);
  return heavyReaderOver(target.withoutPlugins() as Kysely<FlagpostTables>, engine, options.destroyOnClose === true);
}

function wrongEngine(path: string, message: string, engine: Engine): FlagpostError {
  return new FlagpostError("validation_error", `"${path}" ${message}; that Kysely instance uses ${engine}`, {
    details: [{ path, message }],
  });
}
