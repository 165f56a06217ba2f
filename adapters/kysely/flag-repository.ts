import type { Insertable, Selectable } from "kysely";
import type { FlagRecord, FlagRepository } from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import { type Engine, encodeBoolean } from "./dialect.js";
import type { StorageActions } from "./storage-errors.js";
import { toBoolean, toNumber } from "./row-codec.js";
import { FLAGS_REVISION, type FlagsTable } from "./tables.js";
import type { Db } from "./tables.js";

export function toFlag(row: Selectable<FlagsTable>): FlagRecord {
  return {
    id: row.id,
    key: row.key,
    description: row.description,
    enabled: toBoolean(row.enabled),
    rules: JSON.parse(row.rules) as FlagRecord["rules"],
    variants: row.variants ? (JSON.parse(row.variants) as FlagRecord["variants"]) : [],
    prerequisites: row.prerequisites ? (JSON.parse(row.prerequisites) as FlagRecord["prerequisites"]) : [],
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
}

export function toFlagRow(engine: Engine, flag: FlagRecord): Insertable<FlagsTable> {
  return {
    key: flag.key,
    id: flag.id,
    description: flag.description,
    enabled: encodeBoolean(engine, flag.enabled),
    rules: JSON.stringify(flag.rules),
    variants: JSON.stringify(flag.variants ?? []),
    prerequisites: JSON.stringify(flag.prerequisites ?? []),
    created_at: checkedEpochMs(flag.createdAt, "createdAt"),
    updated_at: checkedEpochMs(flag.updatedAt, "updatedAt"),
  };
}

/**
 * Reads `flagpost_flags`, keyed by `key` (byte-wise collation on every engine), and the flags
 * revision in `flagpost_meta`. Writes run in a unit of work (flag-rows.ts).
 */
export class KyselyFlagRepository implements FlagRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyFlagRepository> = {
    get: "read the flag",
    list: "list flags",
    revision: "read the flags revision",
  };

  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async get(key: string): Promise<FlagRecord | undefined> {
    const row = await this.#db.selectFrom("flagpost_flags").selectAll().where("key", "=", key).executeTakeFirst();
    return row && toFlag(row);
  }

  async list({ after, limit }: { after?: string; limit: number }): Promise<FlagRecord[]> {
    let query = this.#db.selectFrom("flagpost_flags").selectAll().orderBy("key").limit(limit);
    if (after !== undefined) query = query.where("key", ">", after);
    return (await query.execute()).map(toFlag);
  }

  async revision(): Promise<number> {
    const row = await this.#db
      .selectFrom("flagpost_meta")
      .select("value")
      .where("name", "=", FLAGS_REVISION)
      .executeTakeFirst();
    return row ? toNumber(row.value) : 0;
  }
}
