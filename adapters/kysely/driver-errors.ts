import { sql } from "kysely";
import { FlagpostError } from "../../src/errors.js";
import { redactCredentials } from "../../src/ports/logger.js";
import type { Engine, AnyKysely } from "./dialect.js";
import { type CodedError, codes } from "./engines/driver-codes.js";
import { engineTraits } from "./engines/index.js";

/**
 * Driver errors, classified without looking at their messages (which can hold SQL and values):
 * only the codes pg, mysql2 and better-sqlite3 put on them.
 */

/** Nothing answered: no connection was ever made. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNRESET",
  "PROTOCOL_CONNECTION_LOST",
]);

/**
 * Errors about the connection or the database itself, not about a statement: their messages hold
 * no SQL and no values ("password authentication failed for user …", "database "x" does not
 * exist", "attempt to write a readonly database"), so they are worth showing, once any password
 * in a URL is masked. PostgreSQL classes 08 (connection), 28 (authorization) and 3D (no such
 * database); MySQL's access and unknown-database errors; SQLite's file-level codes.
 */
function isEnvironmentError(code: unknown): boolean {
  if (typeof code !== "string") return false;
  if (UNREACHABLE.has(code)) return true;
  if (/^(08|28|3D)[0-9A-Z]{3}$/.test(code)) return true;
  if (
    code === "ER_ACCESS_DENIED_ERROR" ||
    code === "ER_DBACCESS_DENIED_ERROR" ||
    code === "ER_BAD_DB_ERROR" ||
    code === "ER_HOST_NOT_PRIVILEGED"
  )
    return true;
  return /^SQLITE_(READONLY|CANTOPEN|NOTADB|CORRUPT|FULL|PERM|IOERR)/.test(code);
}

/** The first coded error inside an AggregateError, or the error itself. */
function innermost(error: unknown): CodedError {
  const coded = codes(error);
  if (coded.code === undefined && Array.isArray(coded.errors) && coded.errors.length > 0) return codes(coded.errors[0]);
  return coded;
}

/**
 * What the driver said, for an environment error: "could not connect (…)" when nothing answered,
 * else its own message; undefined for anything else (a statement's error may quote SQL or values).
 */
export function describeDriverError(error: unknown): string | undefined {
  const { code, message } = innermost(error);
  if (!isEnvironmentError(code)) return undefined;
  const text = typeof message === "string" && message !== "" ? redactCredentials(message) : String(code);
  return UNREACHABLE.has(code as string) ? `could not connect (${text})` : text;
}

/**
 * Errors of a first connection that waiting can clear: nothing listens yet, the server is starting
 * up or shutting down, it has no free connection slot, or it did not answer in time. A refused
 * password, an unknown database or user, a host name that does not resolve, or a URL the driver
 * cannot read are not: waiting would repeat them forever.
 */
export function isWorthWaitingFor(error: unknown): boolean {
  const { code, message } = innermost(error);
  if (typeof code === "string") {
    if (code === "ENOTFOUND") return false; // a misspelt host; EAI_AGAIN is the resolver's "try again"
    if (UNREACHABLE.has(code)) return true;
    // PostgreSQL: connection exceptions, "the database system is starting up" (57P03), shutdowns
    // (57P01, 57P02), too many connections (53300). MySQL: too many connections, shutting down.
    if (/^(08[0-9A-Z]{3}|57P0[123]|53300)$/.test(code)) return true;
    return code === "ER_CON_COUNT_ERROR" || code === "ER_SERVER_SHUTDOWN" || code === "PROTOCOL_SEQUENCE_TIMEOUT";
  }
  // pg and pg-pool give their own timeouts and a dropped socket no code; these are their texts.
  return typeof message === "string" && PG_UNCODED_TRANSIENT.some((text) => message.startsWith(text));
}

const PG_UNCODED_TRANSIENT = [
  "timeout expired",
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "Query read timeout",
];

/** A UNIQUE or PRIMARY KEY constraint refused the write (engines/: each engine's codes). */
export function isUniqueViolation(engine: Engine, error: unknown): boolean {
  return engineTraits(engine).isUniqueViolation(error);
}

/** The engine aborted a transaction to break a deadlock or a serialization conflict: running it again is safe. */
export function isTransientConflict(engine: Engine, error: unknown): boolean {
  return engineTraits(engine).isTransientConflict(error);
}

/** SQLITE_BUSY and its extended codes: another connection holds the write lock. */
export function isSqliteBusy(error: unknown): boolean {
  const { code } = codes(error);
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * The error the port promises: FlagpostErrors pass through, a unique violation becomes
 * `conflict` (when the caller says what conflicts), anything else `unavailable` with the driver's
 * error code, and the original error as `cause`. The driver's message is added only for errors
 * about the connection or the database file (see {@link describeDriverError}).
 */
export function toStorageError(
  engine: Engine,
  action: string,
  error: unknown,
  conflictMessage?: string,
): FlagpostError {
  if (error instanceof FlagpostError) return error;
  if (conflictMessage !== undefined && isUniqueViolation(engine, error)) {
    return new FlagpostError("conflict", conflictMessage, { cause: error });
  }
  const { code } = innermost(error);
  const suffix = typeof code === "string" || typeof code === "number" ? ` (${code})` : "";
  const said = describeDriverError(error);
  return new FlagpostError(
    "unavailable",
    `The ${engineTraits(engine).displayName} database could not ${action}${said === undefined ? "" : `: ${said}`}${suffix}`,
    { cause: error },
  );
}

/** SQLite errors about the database file (read-only, missing directory, not a database, disk full). */
export function isSqliteFileError(error: unknown): boolean {
  const cause = error instanceof FlagpostError ? error.cause : error;
  const { code } = codes(cause);
  return typeof code === "string" && /^SQLITE_(READONLY|CANTOPEN|NOTADB|CORRUPT|FULL|PERM|IOERR)/.test(code);
}

/**
 * Names the SQLite file in a file-level error ("… attempt to write a readonly database
 * (SQLITE_READONLY); file: /srv/app.db"): the driver's message does not say which file. The path
 * is asked of SQLite itself, since the adapter only holds the Kysely instance.
 */
export async function withSqliteFile(db: AnyKysely, error: unknown): Promise<unknown> {
  if (!(error instanceof FlagpostError) || !isSqliteFileError(error)) return error;
  const file = await sql<{ name: string; file: string }>`pragma database_list`.execute(db).then(
    (result) => result.rows.find((row) => row.name === "main")?.file,
    () => undefined,
  );
  if (!file) return error;
  return new FlagpostError(error.code, `${error.message}; file: ${file}`, { cause: error.cause });
}
