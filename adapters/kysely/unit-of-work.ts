import type { Kysely } from "kysely";
import { FlagpostError } from "../../src/errors.js";
import type { Storage, StorageTransaction } from "../../src/ports/storage/index.js";
import type { Engine } from "./dialect.js";
import { recordDomainEvents } from "./domain-events.js";
import { KyselyDomainRows } from "./domain-rows.js";
import { toStorageError } from "./driver-errors.js";
import { recordFlagHistory } from "./flag-history-repository.js";
import { KyselyFlagRows } from "./flag-rows.js";
import { completeSchedule } from "./flag-schedule-repository.js";
import { KyselySuppressionRows } from "./suppression-rows.js";
import type { FlagpostTables } from "./tables.js";
import { inTransaction } from "./transaction.js";

/** Errors `fn` itself threw (a bug, a refusal it made up), as opposed to the database's. */
const thrownByCaller = new WeakSet<object>();
/** Errors a statement of the transaction raised: they left a row store, not the caller's code. */
const raisedByDatabase = new WeakSet<object>();

function isObject(value: unknown): value is object {
  return (typeof value === "object" && value !== null) || typeof value === "function";
}

/** `part` with each method's rejection marked as the database's (raisedByDatabase). */
function noting<T extends object>(part: T): T {
  return new Proxy(part, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch((error: unknown) => {
          if (isObject(error)) raisedByDatabase.add(error);
          throw error;
        });
    },
  });
}

/**
 * The unit of work over Kysely: one `db.transaction()` (run again after a deadlock the engine
 * broke, transaction.ts), with plain repositories bound to it. What reaches the caller: a
 * FlagpostError unchanged; an error `fn` threw of its own (a plain bug) unchanged too, so it reads
 * as the bug it is (500), not as the database being unavailable; a driver error, raised by a
 * statement inside or by BEGIN/COMMIT, translated once, here ({@link toStorageError}).
 */
export function kyselyTransactions(db: Kysely<FlagpostTables>, engine: Engine): Storage["transaction"] {
  return (fn) =>
    inTransaction(db, engine, (trx) => {
      const tx: StorageTransaction = {
        flags: noting(new KyselyFlagRows(trx, engine)),
        suppressions: noting(new KyselySuppressionRows(trx, engine)),
        domains: noting(new KyselyDomainRows(trx, engine)),
        flagHistory: noting({ append: (entry) => recordFlagHistory(trx, entry) }),
        domainEvents: noting({ record: (events) => recordDomainEvents(trx, engine, events) }),
        flagSchedules: noting({ complete: (schedule, at) => completeSchedule(trx, schedule, at) }),
      };
      return fn(tx).catch((error: unknown) => {
        if (isObject(error) && !raisedByDatabase.has(error)) thrownByCaller.add(error);
        throw error;
      });
    }).catch((error: unknown) => {
      if (error instanceof FlagpostError || !isObject(error) || thrownByCaller.has(error)) throw error;
      throw toStorageError(engine, "complete the transaction", error);
    });
}
