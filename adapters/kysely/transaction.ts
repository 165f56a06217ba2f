import type { Kysely, Transaction } from "kysely";
import { exponential, retrying } from "../../src/jobs/index.js";
import type { Engine } from "./dialect.js";
import { isTransientConflict } from "./driver-errors.js";

const MAX_ATTEMPTS = 4;
/** Short waits between deadlock retries: 10 ms doubling to 40 ms, full jitter. */
const DEADLOCK_BACKOFF = exponential(10, 40);

/** Transactions that stored webhook deliveries (recordDomainEvents marks them). */
const storedDeliveries = new WeakSet<object>();
/** Who to tell once such a transaction commits, per Kysely instance (one per storage). */
const committedListeners = new WeakMap<object, Set<() => void>>();

/** Connections held for a commit's settings (relaxed-durability.ts), each with the instance it was taken from. */
const heldFrom = new WeakMap<object, object>();

/** `held` is a connection taken from `db`: deliveries its transactions store are reported to `db`'s listeners. */
export function noteHeldConnection(held: object, db: object): void {
  if (held !== db) heldFrom.set(held, db);
}

/** Marks `trx` as one that stored webhook deliveries: its commit is reported to onDeliveriesCommitted's listeners. */
export function markDeliveriesStored(trx: object): void {
  storedDeliveries.add(trx);
}

/** Calls `listener` after each transaction run through `db` by inTransaction that stored deliveries commits. */
export function onDeliveriesCommitted(db: object, listener: () => void): () => void {
  let listeners = committedListeners.get(db);
  if (!listeners) committedListeners.set(db, (listeners = new Set()));
  const own = () => listener();
  listeners.add(own);
  return () => listeners.delete(own);
}

/**
 * Runs `work` in one transaction, and runs it again (up to 4 times in all) when the engine
 * aborted it to break a deadlock, which InnoDB does under ordinary unique-key and gap-lock
 * contention. `work` must therefore only touch the database. Once it commits, a transaction that
 * stored webhook deliveries is reported (the delivery worker wakes instead of waiting for a poll).
 */
export async function inTransaction<DB, T>(
  db: Kysely<DB>,
  engine: Engine,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  return retryingDeadlocks(engine, async () => {
    let used: Transaction<DB> | undefined;
    const result = await db.transaction().execute((trx) => {
      used = trx;
      return work(trx);
    });
    if (used && storedDeliveries.has(used))
      for (const listener of committedListeners.get(heldFrom.get(db) ?? db) ?? []) queueMicrotask(listener);
    return result;
  });
}

/**
 * Runs `statement` (one that commits by itself, or a whole transaction) again, up to 4 times in
 * all, when the engine aborted it to break a deadlock. InnoDB does so among plain INSERTs of one unique key: each waiting
 * insert is granted a shared lock on the key (or its gap, once the holder rolled back or the key's
 * deleted row is not purged yet) and then needs an insert-intention lock the others' shared locks
 * block. The victim was rolled back whole, so running it again is safe, and it then meets the
 * winner's row as a plain duplicate key (`conflict`) or, when no row won, inserts its own.
 */
export function retryingDeadlocks<T>(engine: Engine, statement: () => Promise<T>): Promise<T> {
  return retrying(statement, {
    attempts: MAX_ATTEMPTS,
    backoff: DEADLOCK_BACKOFF,
    retryOn: (error) => isTransientConflict(engine, error),
  });
}
