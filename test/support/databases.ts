import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from "kysely";
import { createPool, type PoolOptions } from "mysql2";
import pg from "pg";
import { describe, it } from "vitest";
import { kyselyStorage, withStatementCache } from "../../adapters/kysely/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { clearTables } from "./clear-tables.js";

/**
 * Database plumbing for tests that run against real engines: which backends are switched on by
 * the environment, and a fresh, isolated database per caller (a temp file for SQLite, a schema
 * of its own on PostgreSQL, a database of its own on MariaDB/MySQL), removed afterwards. Other
 * engineers run tests against the same servers at the same time, so nothing is ever shared.
 */

export const BACKENDS = ["sqlite", "postgres", "mysql"] as const;
export type Backend = (typeof BACKENDS)[number];

/** The variable holding each server's URL. SQLite needs none: it always runs, on temp files. */
export const BACKEND_URL_VARIABLES = {
  postgres: "FLAGPOST_TEST_PG_URL",
  mysql: "FLAGPOST_TEST_MYSQL_URL",
} as const;

/** Set to 1 (as CI does) to make a backend whose URL is missing fail instead of skip. */
export const REQUIRE_ALL_VARIABLE = "FLAGPOST_TEST_REQUIRE_ALL";

export function backendUrl(backend: Exclude<Backend, "sqlite">): string | undefined {
  const value = process.env[BACKEND_URL_VARIABLES[backend]];
  return value === undefined || value === "" ? undefined : value;
}

export function isBackendEnabled(backend: Backend): boolean {
  return backend === "sqlite" || backendUrl(backend) !== undefined;
}

/** SQLite always; PostgreSQL and MySQL when their URL is set. */
export function enabledBackends(): Backend[] {
  return BACKENDS.filter(isBackendEnabled);
}

/**
 * Calls `register` (which registers describe/it blocks) when `backend` is enabled. Otherwise
 * registers one test under `title` that says which variable to set: skipped normally, failing
 * when FLAGPOST_TEST_REQUIRE_ALL=1, so CI cannot pass by silently running nothing.
 */
export function describeIfBackend(backend: Backend, title: string, register: () => void): void {
  if (isBackendEnabled(backend)) {
    // In a describe of its own, so the hooks `register` adds run around this backend's tests only.
    describe(title, register);
    return;
  }
  const variable = BACKEND_URL_VARIABLES[backend as Exclude<Backend, "sqlite">];
  if (process.env[REQUIRE_ALL_VARIABLE] === "1") {
    describe(title, () => {
      it(`needs ${variable}`, () => {
        throw new Error(`${variable} is not set, and ${REQUIRE_ALL_VARIABLE}=1 makes a missing backend a failure`);
      });
    });
    return;
  }
  describe.skip(`${title} (skipped: set ${variable} to run it)`, () => {
    it(`runs only when ${variable} is set`, () => undefined);
  });
}

export interface OpenOptions {
  /** SQLite only: busy_timeout of the new handle in milliseconds (default 5000). */
  busyTimeoutMs?: number;
}

/** One isolated database on one backend. */
export interface TestDatabase {
  readonly backend: Backend;
  /** An instance on the isolated database (destroyed by `drop`). */
  readonly db: Kysely<any>;
  /** The database as `FLAGPOST_DB` names it, for a `flagpost serve` child process. */
  readonly url: string;
  /**
   * Opens another instance on the same database with its own pool or SQLite handle, as another
   * process would. Destroyed by `drop` unless the caller destroyed it before.
   */
  open(options?: OpenOptions): Kysely<any>;
  /**
   * Empties every `flagpost_` table except the migration bookkeeping and sets the counters of
   * `flagpost_meta` back to 0: a migrated, empty storage, much faster than migrating again.
   */
  clear(): Promise<void>;
  /** Destroys every instance opened and removes the database. */
  drop(): Promise<void>;
}

/** A fresh, empty (unmigrated) database. `backend` must be enabled. */
export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  switch (backend) {
    case "sqlite":
      return sqliteDatabase();
    case "postgres":
      return postgresDatabase(requiredUrl("postgres"));
    case "mysql":
      return mysqlDatabase(requiredUrl("mysql"));
  }
}

/** A fresh database with a migrated Storage on it; `database.drop()` releases both. */
export async function createTestStorage(backend: Backend): Promise<{ storage: Storage; database: TestDatabase }> {
  const database = await createTestDatabase(backend);
  const storage = kyselyStorage(database.db);
  try {
    await storage.migrate();
  } catch (error) {
    await database.drop();
    throw error;
  }
  return { storage, database };
}

function requiredUrl(backend: Exclude<Backend, "sqlite">): string {
  const url = backendUrl(backend);
  if (url === undefined) throw new Error(`${BACKEND_URL_VARIABLES[backend]} is not set`);
  return url;
}

function uniqueName(): string {
  return `flagpost_test_${randomBytes(6).toString("hex")}`;
}

/** Tracks the instances of one test database and builds its TestDatabase. */
function testDatabase(
  backend: Backend,
  url: string,
  connect: (options: OpenOptions) => Kysely<any>,
  remove: () => Promise<void>,
): TestDatabase {
  const instances = new Set<Kysely<any>>();
  const open = (options: OpenOptions = {}) => {
    const db = connect(options);
    instances.add(db);
    return db;
  };
  const db = open();
  return {
    backend,
    db,
    url,
    open,
    clear: () => clearTables(backend, db),
    async drop() {
      await Promise.allSettled([...instances].map((instance) => instance.destroy()));
      instances.clear();
      await remove();
    },
  };
}

async function sqliteDatabase(): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), "flagpost-test-"));
  const file = join(dir, "flagpost.db");
  const connect = ({ busyTimeoutMs = 5_000 }: OpenOptions) =>
    new Kysely<any>({
      dialect: new SqliteDialect({
        // Opened on first use, so an instance that never runs a query holds no file handle.
        database: async () => {
          const database = new SQLite(file, { timeout: busyTimeoutMs });
          database.pragma("journal_mode = WAL");
          // As `flagpost serve` opens it: every suite on SQLite runs on reused statements.
          return withStatementCache(database);
        },
      }),
    });
  return testDatabase("sqlite", file, connect, () => rm(dir, { recursive: true, force: true }));
}

async function postgresDatabase(url: string): Promise<TestDatabase> {
  const schema = uniqueName();
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await admin.query(`create schema "${schema}"`);
  } catch (error) {
    await admin.end();
    throw error;
  }
  // Unqualified names resolve to the test's own schema through search_path.
  const connect = () =>
    new Kysely<any>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 10 }),
      }),
    });
  const schemaUrl = new URL(url);
  schemaUrl.searchParams.set("options", `-c search_path=${schema}`);
  return testDatabase("postgres", schemaUrl.toString(), connect, async () => {
    try {
      await admin.query(`drop schema if exists "${schema}" cascade`);
    } finally {
      await admin.end();
    }
  });
}

function mysqlOptions(url: string): PoolOptions {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: parsed.port === "" ? 3306 : Number(parsed.port),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
}

async function mysqlDatabase(url: string): Promise<TestDatabase> {
  const name = uniqueName();
  const base = mysqlOptions(url);
  const admin = createPool({ ...base, connectionLimit: 1 }).promise();
  try {
    // latin1 on purpose: the tables must bring their own utf8mb4 character set and binary
    // collation rather than rely on a server or database default.
    await admin.query(`create database \`${name}\` character set latin1`);
  } catch (error) {
    await admin.end();
    throw error;
  }
  const connect = () =>
    new Kysely<any>({
      dialect: new MysqlDialect({ pool: createPool({ ...base, database: name, connectionLimit: 10 }) }),
    });
  const databaseUrl = new URL(url);
  databaseUrl.pathname = `/${name}`;
  return testDatabase("mysql", databaseUrl.toString(), connect, async () => {
    try {
      await admin.query(`drop database if exists \`${name}\``);
    } finally {
      await admin.end();
    }
  });
}
