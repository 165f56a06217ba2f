import { FlagpostError } from "../../src/errors.js";
import type { Engine } from "./dialect.js";

/**
 * Driver errors, classified without looking at their messages (which can hold SQL and values):
 * only the codes pg, mysql2 and better-sqlite3 put on them.
 */

interface CodedError {
  code?: unknown;
  errno?: unknown;
}

function codes(error: unknown): CodedError {
  return typeof error === "object" && error !== null ? (error as CodedError) : {};
}

/** A UNIQUE or PRIMARY KEY constraint refused the write. */
export function isUniqueViolation(engine: Engine, error: unknown): boolean {
  const { code, errno } = codes(error);
  switch (engine) {
    case "postgres":
      return code === "23505";
    case "mysql":
      return code === "ER_DUP_ENTRY" || errno === 1062 || errno === 1586;
    case "sqlite":
      return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
  }
}

/** The engine aborted a transaction to break a deadlock or a serialization conflict: running it again is safe. */
export function isTransientConflict(engine: Engine, error: unknown): boolean {
  const { code, errno } = codes(error);
  switch (engine) {
    case "postgres":
      return code === "40P01" || code === "40001";
    case "mysql":
      return code === "ER_LOCK_DEADLOCK" || errno === 1213;
    case "sqlite":
      return false; // one connection per instance; another process's lock is waited for by busy_timeout
  }
}

/** SQLITE_BUSY and its extended codes: another connection holds the write lock. */
export function isSqliteBusy(error: unknown): boolean {
  const { code } = codes(error);
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

const ENGINE_NAMES: Record<Engine, string> = { sqlite: "SQLite", postgres: "PostgreSQL", mysql: "MySQL" };

/**
 * The error the port promises: FlagpostErrors pass through, a unique violation becomes
 * `conflict` (when the caller says what conflicts), anything else `unavailable` with the driver's
 * error code but not its message, and the original error as `cause`.
 */
export function toStorageError(engine: Engine, action: string, error: unknown, conflictMessage?: string): FlagpostError {
  if (error instanceof FlagpostError) return error;
  if (conflictMessage !== undefined && isUniqueViolation(engine, error)) {
    return new FlagpostError("conflict", conflictMessage, { cause: error });
  }
  const { code } = codes(error);
  const suffix = typeof code === "string" || typeof code === "number" ? ` (${code})` : "";
  return new FlagpostError("unavailable", `The ${ENGINE_NAMES[engine]} database could not ${action}${suffix}`, { cause: error });
}

/** Runs one repository operation and maps whatever it throws with {@link toStorageError}. */
export async function guard<T>(engine: Engine, action: string, work: () => Promise<T>, conflictMessage?: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toStorageError(engine, action, error, conflictMessage);
  }
}

/** MySQL's "Duplicate key name" (ER_DUP_KEYNAME): the index exists already. */
export function isIndexAlreadyThere(error: unknown): boolean {
  const { code, errno } = codes(error);
  return code === "ER_DUP_KEYNAME" || errno === 1061;
}

/** MySQL: ADD COLUMN of a column the table already has. */
export function isColumnAlreadyThere(error: unknown): boolean {
  const { code, errno } = codes(error);
  return code === "ER_DUP_FIELDNAME" || errno === 1060;
}
