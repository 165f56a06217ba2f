import type { AnyDatabase, AnyKysely } from "../adapters/kysely/dialect.js";
import type { PgListenConnect } from "../adapters/kysely/postgres-flag-watch.js";
import { withStatementCache } from "../adapters/kysely/sqlite-statements.js";
import { resolve } from "node:path";
import { FlagpostError } from "../src/errors.js";
import { silentLogger, type Logger } from "../src/ports/logger.js";
import { importWithPeers } from "../src/optional-peer.js";
import { closeOnFailure } from "./close-on-failure.js";
import { positiveFromEnv } from "./env-number.js";
import {
  DEFAULT_STORAGE_TIMEOUTS,
  listenClientSettings,
  mysqlPool,
  postgresPool,
  type StorageTimeouts,
} from "./database-pools.js";

/**
 * Builds the Kysely instance the CLI hands to kyselyStorage, from FLAGPOST_DB. This is the one
 * place in flagpost that turns a URL into a connection; the library itself only takes instances.
 * Drivers are imported on demand, so a SQLite user needs neither pg nor mysql2 (and the reverse).
 */

export const DEFAULT_DATABASE = "./flagpost.db";
/** How long a SQLite write waits for another process's write lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

export type DatabaseTarget =
  { engine: "sqlite"; path: string } | { engine: "postgres"; url: string } | { engine: "mysql"; url: string };

const ACCEPTED = 'a file path, ":memory:", postgres://…, postgresql://…, mysql://… or mariadb://…';

/** What a FLAGPOST_DB value points at. An empty value means the default file, ./flagpost.db. */
export function parseDatabaseUrl(value: string): DatabaseTarget {
  const text = value.trim() === "" ? DEFAULT_DATABASE : value.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) return { engine: "sqlite", path: text };
  if (scheme === "postgres" || scheme === "postgresql") return { engine: "postgres", url: text };
  // mysql2 parses mysql:// only; a MariaDB server speaks the same protocol.
  if (scheme === "mysql" || scheme === "mariadb") return { engine: "mysql", url: text.replace(/^[a-z]+:/i, "mysql:") };
  throw new FlagpostError("validation_error", `FLAGPOST_DB must be ${ACCEPTED}; "${scheme}://" is not supported`, {
    details: [{ path: "FLAGPOST_DB", message: `must be ${ACCEPTED}` }],
  });
}

/** How a server database is opened: its timeouts, and where lost connections are logged. */
export interface DatabaseSettings extends StorageTimeouts {
  logger: Logger;
  /** PostgreSQL, MySQL/MariaDB: the connections of the separate pool heavy reads run on (default 2). */
  heavyReadConnections?: number;
}

/** FLAGPOST_DB_HEAVY_READ_CONNECTIONS when unset: two results at once, eight left for everything else. */
const DEFAULT_HEAVY_READ_CONNECTIONS = 2;

/** FLAGPOST_DB_CONNECT_TIMEOUT_MS and FLAGPOST_DB_STATEMENT_TIMEOUT_MS (5 s and 10 s when unset). */
export function databaseSettingsFrom(env: NodeJS.ProcessEnv, logger: Logger): DatabaseSettings {
  const integer = { integer: true };
  return {
    connectTimeoutMs:
      positiveFromEnv(env, "FLAGPOST_DB_CONNECT_TIMEOUT_MS", integer) ?? DEFAULT_STORAGE_TIMEOUTS.connectTimeoutMs,
    statementTimeoutMs:
      positiveFromEnv(env, "FLAGPOST_DB_STATEMENT_TIMEOUT_MS", integer) ?? DEFAULT_STORAGE_TIMEOUTS.statementTimeoutMs,
    heavyReadConnections:
      positiveFromEnv(env, "FLAGPOST_DB_HEAVY_READ_CONNECTIONS", integer) ?? DEFAULT_HEAVY_READ_CONNECTIONS,
    logger,
  };
}

const DEFAULT_SETTINGS: DatabaseSettings = { ...DEFAULT_STORAGE_TIMEOUTS, logger: silentLogger };

/** Opens the database FLAGPOST_DB names (see {@link parseDatabaseUrl}); the caller destroys it. */
export async function openDatabase(
  url: string = DEFAULT_DATABASE,
  settings: DatabaseSettings = DEFAULT_SETTINGS,
): Promise<AnyKysely> {
  const target = parseDatabaseUrl(url);
  switch (target.engine) {
    case "sqlite":
      return openSqlite(target.path);
    case "postgres":
      return openPostgres(target.url, settings);
    case "mysql":
      return openMysql(target.url, settings);
  }
}

/**
 * Where the storage runs heavy reads (kyselyStorage's `heavyReads`): for a SQLite file, a worker
 * thread reading the same file; for PostgreSQL and MySQL/MariaDB, a second pool of
 * `heavyReadConnections`. An in-memory SQLite database exists only inside its one connection, so a
 * thread cannot read it: its heavy reads run in the process (undefined), as before.
 */
export async function openHeavyReads(
  url: string = DEFAULT_DATABASE,
  settings: DatabaseSettings = DEFAULT_SETTINGS,
): Promise<AnyKysely | { sqliteFile: string } | undefined> {
  const target = parseDatabaseUrl(url);
  const size = settings.heavyReadConnections ?? DEFAULT_HEAVY_READ_CONNECTIONS;
  // The wait for one of the few heavy-read connections is a queue, not a database that does not
  // answer: it may last as long as a statement may, after which the read answers 503.
  const heavy = { ...settings, connectTimeoutMs: Math.max(settings.connectTimeoutMs, settings.statementTimeoutMs) };
  switch (target.engine) {
    case "sqlite":
      return target.path === ":memory:" ? undefined : { sqliteFile: target.path };
    case "postgres":
      return openPostgres(target.url, heavy, size);
    case "mysql":
      return openMysql(target.url, heavy, size);
  }
}

async function load<T>(name: string, what: string, importer: () => Promise<T>): Promise<T> {
  return importWithPeers(`FLAGPOST_DB points to ${what}, which`, [name], importer);
}

/**
 * SQLite in WAL mode (readers do not block the writer, and several processes can share the file),
 * with a busy_timeout so a writer waits for another's lock instead of failing at once, and
 * synchronous=FULL so a commit survives a power loss, not only a process crash.
 */
async function openSqlite(path: string): Promise<AnyKysely> {
  const { default: Database } = await load("better-sqlite3", "a SQLite database", () => import("better-sqlite3"));
  const { Kysely, SqliteDialect } = await load("kysely", "a SQLite database", () => import("kysely"));
  let database: InstanceType<typeof Database> | undefined;
  try {
    database = new Database(path, { timeout: SQLITE_BUSY_TIMEOUT_MS });
    // Switching to WAL writes to the file: a read-only file fails here, so it is named here too.
    if (path !== ":memory:") database.pragma("journal_mode = WAL");
    database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    database.pragma("synchronous = FULL");
    database.pragma("foreign_keys = ON");
  } catch (error) {
    database?.close();
    const code = (error as { code?: unknown }).code;
    const suffix = typeof code === "string" ? ` (${code})` : "";
    throw new FlagpostError(
      "unavailable",
      `Cannot open the SQLite database at ${resolve(path)}: ${(error as Error).message}${suffix}`,
      { cause: error },
    );
  }
  // Each distinct SQL text is prepared once (adapters/kysely/sqlite-statements.ts).
  return new Kysely<AnyDatabase>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
}

/** A pool with error listeners and timeouts on every connection (cli/database-pools.ts). */
async function openPostgres(url: string, settings: DatabaseSettings, size?: number): Promise<AnyKysely> {
  const { default: pg } = await load("pg", "PostgreSQL", () => import("pg"));
  const { Kysely, PostgresDialect } = await load("kysely", "PostgreSQL", () => import("kysely"));
  return new Kysely<AnyDatabase>({
    dialect: new PostgresDialect({ pool: postgresPool(pg, url, settings, settings.logger, size) }),
  });
}

/**
 * For PostgreSQL: how to open the dedicated connection kyselyStorage LISTENs on for flag changes
 * (a `pg.Client` beside the pool, so the pool keeps every slot for queries). Undefined for the
 * other engines, which have no notifications and are polled.
 */
export async function listenConnectFor(
  url: string = DEFAULT_DATABASE,
  timeouts: StorageTimeouts = DEFAULT_STORAGE_TIMEOUTS,
): Promise<PgListenConnect | undefined> {
  const target = parseDatabaseUrl(url);
  if (target.engine !== "postgres") return undefined;
  const { default: pg } = await load("pg", "PostgreSQL", () => import("pg"));
  return async () => {
    const client = new pg.Client(listenClientSettings(target.url, timeouts));
    await closeOnFailure(
      () => client.connect(),
      () => client.end(),
    );
    return client;
  };
}

async function openMysql(url: string, settings: DatabaseSettings, size?: number): Promise<AnyKysely> {
  const mysql = await load("mysql2", "MySQL/MariaDB", () => import("mysql2"));
  const { Kysely, MysqlDialect } = await load("kysely", "MySQL/MariaDB", () => import("kysely"));
  return new Kysely<AnyDatabase>({
    dialect: new MysqlDialect({ pool: mysqlPool(mysql, url, settings, settings.logger, size) }),
  });
}
