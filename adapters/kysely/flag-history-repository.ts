import type { Selectable, Transaction } from "kysely";
import type {
  FlagActor,
  FlagHistoryAction,
  FlagHistoryEntry,
  FlagHistoryRepository,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { StorageActions } from "./storage-errors.js";
import { toNumber } from "./row-codec.js";
import type { FlagHistoryTable, FlagpostTables } from "./tables.js";
import type { Db } from "./tables.js";

/** Stores one history entry; called by the flag repository inside the transaction of the write it records. */
export async function recordFlagHistory(trx: Transaction<FlagpostTables>, entry: FlagHistoryEntry): Promise<void> {
  await trx
    .insertInto("flagpost_flag_history")
    .values({
      id: entry.id,
      flag_key: entry.flagKey,
      action: entry.action,
      at: checkedEpochMs(entry.at, "at"),
      actor: JSON.stringify(entry.actor),
      changes: JSON.stringify(entry.changes),
    })
    .execute();
}

function toEntry(row: Selectable<FlagHistoryTable>): FlagHistoryEntry {
  return {
    id: row.id,
    flagKey: row.flag_key,
    action: row.action as FlagHistoryAction,
    at: toNumber(row.at),
    actor: JSON.parse(row.actor) as FlagActor,
    changes: JSON.parse(row.changes) as FlagHistoryEntry["changes"],
  };
}

/** Reads `flagpost_flag_history` newest first through the (flag_key, id) index. */
export class KyselyFlagHistoryRepository implements FlagHistoryRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyFlagHistoryRepository> = {
    list: "read the flag history",
  };

  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async list(flagKey: string, { before, limit }: { before?: string; limit: number }): Promise<FlagHistoryEntry[]> {
    let query = this.#db
      .selectFrom("flagpost_flag_history")
      .selectAll()
      .where("flag_key", "=", flagKey)
      .orderBy("id", "desc")
      .limit(limit);
    if (before !== undefined) query = query.where("id", "<", before);
    return (await query.execute()).map(toEntry);
  }
}
