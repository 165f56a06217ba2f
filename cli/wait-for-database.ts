import { setTimeout as delay } from "node:timers/promises";
import { sql } from "kysely";
import type { AnyKysely } from "../adapters/kysely/dialect.js";
import { describeDriverError, isWorthWaitingFor } from "../adapters/kysely/driver-errors.js";
import { backoffDelay, exponential } from "../src/jobs/index.js";
import { errorFields, type Logger } from "../src/ports/logger.js";
import { FlagpostError } from "../src/errors.js";
import { redactCredentials } from "../src/ports/logger.js";

/**
 * The first contact with the database, before flagpost migrates it: one `select 1`. Its error is
 * about the connection or the server, never about data (the statement is this constant), so the
 * driver's own message is shown, passwords masked, even when the driver gives it no code (pg's
 * SCRAM errors have none).
 *
 * `wait` (flagpost serve): an error that waiting can clear (nothing listens yet, the server is
 * starting up, a timeout; see isWorthWaitingFor) is logged and tried again with a capped backoff,
 * for as long as it takes, so a server started before its database comes up when the database
 * does. Anything else, or any error without `wait` (one-shot commands), ends the start at once.
 */

/** Waits between attempts: 250 ms doubling to 5 s, equal jitter (never at once, never all together). */
export const DATABASE_WAIT_BACKOFF = exponential(250, 5_000, "equal");

export async function reachDatabase(
  db: AnyKysely,
  where: string,
  { wait, logger }: { wait: boolean; logger: Logger },
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await sql`select 1`.execute(db);
      if (attempt > 1) logger.info("database reached", { db: where, attempts: attempt });
      return;
    } catch (error) {
      if (!wait || !isWorthWaitingFor(error)) throw cannotConnect(where, error);
      const retryInMs = Math.round(backoffDelay(DATABASE_WAIT_BACKOFF, attempt));
      logger.warn("waiting for the database", { db: where, attempt, retry_in_ms: retryInMs, ...errorFields(error) });
      // SIGINT or SIGTERM meanwhile ends the process as usual: nothing is open yet but this pool.
      await delay(retryInMs);
    }
  }
}

/** "Cannot open the database <db>: <the driver's message> (<code>)", with a hint for a missing password. */
function cannotConnect(where: string, error: unknown): FlagpostError {
  const inner = firstOf(error);
  const code = (inner as { code?: unknown }).code;
  const said =
    describeDriverError(error) ??
    (inner instanceof Error && inner.message !== "" ? redactCredentials(inner.message) : String(inner));
  const suffix = typeof code === "string" || typeof code === "number" ? ` (${code})` : "";
  // pg's words when the URL has no password and the server asks for one (SCRAM).
  const hint = /client password must be a string/.test(said)
    ? "; the server asks for a password and FLAGPOST_DB gives none"
    : "";
  return new FlagpostError("unavailable", `Cannot open the database ${where}: ${said}${suffix}${hint}`, {
    cause: error,
  });
}

/** The first error inside an AggregateError (every address of a host name was tried), or the error. */
function firstOf(error: unknown): unknown {
  const { errors, message } = (typeof error === "object" && error !== null ? error : {}) as {
    errors?: unknown;
    message?: unknown;
  };
  return Array.isArray(errors) && errors.length > 0 && !message ? errors[0] : error;
}
