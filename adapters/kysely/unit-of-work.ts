import type { Kysely } from "kysely";
import type { Storage } from "../../src/storage/index.js";
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

/**
 * The unit of work over Kysely: one `db.transaction()` (run again after a deadlock the engine
 * broke, transaction.ts), with plain repositories bound to it. Driver errors raised inside reach
 * the caller translated once, here ({@link toStorageError}); FlagpostErrors pass unchanged.
 */
export function kyselyTransactions(db: Kysely<FlagpostTables>, engine: Engine): Storage["transaction"] {
  return (fn) =>
    inTransaction(db, engine, (trx) =>
      fn({
        flags: new KyselyFlagRows(trx, engine),
        suppressions: new KyselySuppressionRows(trx, engine),
        domains: new KyselyDomainRows(trx, engine),
        flagHistory: { append: (entry) => recordFlagHistory(trx, entry) },
        domainEvents: { record: (events) => recordDomainEvents(trx, events) },
        flagSchedules: { complete: (schedule, at) => completeSchedule(trx, schedule, at) },
      }),
    ).catch((error: unknown) => {
      throw toStorageError(engine, "complete the transaction", error);
    });
}
