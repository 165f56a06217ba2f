import { setTimeout as delay } from "node:timers/promises";
import type { Kysely, Transaction } from "kysely";
import { backoffDelay, exponential } from "../../src/jobs/backoff.js";
import type { Engine } from "./dialect.js";
import { isTransientConflict } from "./driver-errors.js";

const MAX_ATTEMPTS = 4;
/** Short waits between deadlock retries: 10 ms doubling to 40 ms, full jitter. */
const DEADLOCK_BACKOFF = exponential(10, 40);

/**
 * Runs `work` in one transaction, and runs it again (up to 4 times in all) when the engine
 * aborted it to break a deadlock, which InnoDB does under ordinary unique-key and gap-lock
 * contention. `work` must therefore only touch the database.
 */
export async function inTransaction<DB, T>(
  db: Kysely<DB>,
  engine: Engine,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isTransientConflict(engine, error)) throw error;
      await delay(backoffDelay(DEADLOCK_BACKOFF, attempt));
    }
  }
}
