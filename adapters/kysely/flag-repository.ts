import type { Kysely, Selectable, Transaction, Updateable } from "kysely";
import type { FlagChanges, FlagRecord, FlagRepository } from "../../src/storage/index.js";
import { type Engine, encodeBoolean } from "./dialect.js";
import { guard } from "./driver-errors.js";
import { toBoolean, toEpochMs, toIso, toNumber } from "./row-codec.js";
import { FLAGS_REVISION, type FlagpostTables, type FlagsTable } from "./tables.js";
import { inTransaction } from "./transaction.js";

type Db = Kysely<FlagpostTables>;

function toFlag(row: Selectable<FlagsTable>): FlagRecord {
  return {
    id: row.id,
    key: row.key,
    description: row.description,
    enabled: toBoolean(row.enabled),
    rules: JSON.parse(row.rules) as FlagRecord["rules"],
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

/** Bumps the revision counter inside the transaction of the flag write it reports. */
async function bumpRevision(trx: Transaction<FlagpostTables>): Promise<void> {
  await trx
    .updateTable("flagpost_meta")
    .set((eb) => ({ value: eb("value", "+", 1).$castTo<number>() }))
    .where("name", "=", FLAGS_REVISION)
    .execute();
}

/**
 * Flags in `flagpost_flags`, keyed by `key` (byte-wise collation on every engine). Every write
 * bumps `flagpost_meta.flags_revision` in its own transaction, after the flag row, so all flag
 * writers take their locks in the same order (flag row, then counter) and cannot deadlock.
 */
export class KyselyFlagRepository implements FlagRepository {
  readonly #db: Db;
  readonly #engine: Engine;

  constructor(db: Db, engine: Engine) {
    this.#db = db;
    this.#engine = engine;
  }

  async insert(flag: FlagRecord): Promise<void> {
    const row = {
      key: flag.key,
      id: flag.id,
      description: flag.description,
      enabled: encodeBoolean(this.#engine, flag.enabled),
      rules: JSON.stringify(flag.rules),
      created_at: toEpochMs(flag.createdAt, "createdAt"),
      updated_at: toEpochMs(flag.updatedAt, "updatedAt"),
    };
    await guard(
      this.#engine,
      "store the flag",
      () =>
        inTransaction(this.#db, this.#engine, async (trx) => {
          await trx.insertInto("flagpost_flags").values(row).execute();
          await bumpRevision(trx);
        }),
      `A flag with key "${flag.key}" already exists`,
    );
  }

  async get(key: string): Promise<FlagRecord | undefined> {
    return guard(this.#engine, "read the flag", async () => {
      const row = await this.#db.selectFrom("flagpost_flags").selectAll().where("key", "=", key).executeTakeFirst();
      return row && toFlag(row);
    });
  }

  async list({ after, limit }: { after?: string; limit: number }): Promise<FlagRecord[]> {
    return guard(this.#engine, "list flags", async () => {
      let query = this.#db.selectFrom("flagpost_flags").selectAll().orderBy("key").limit(limit);
      if (after !== undefined) query = query.where("key", ">", after);
      return (await query.execute()).map(toFlag);
    });
  }

  async update(key: string, changes: FlagChanges): Promise<FlagRecord | undefined> {
    // Only the columns given are SET, so concurrent updates of different fields both survive.
    const set: Updateable<FlagsTable> = { updated_at: toEpochMs(changes.updatedAt, "updatedAt") };
    if (changes.description !== undefined) set.description = changes.description;
    if (changes.enabled !== undefined) set.enabled = encodeBoolean(this.#engine, changes.enabled);
    if (changes.rules !== undefined) set.rules = JSON.stringify(changes.rules);
    return guard(this.#engine, "update the flag", () =>
      inTransaction(this.#db, this.#engine, async (trx) => {
        const row = this.#engine === "mysql" ? await this.#updateThenRead(trx, key, set) : await this.#updateReturning(trx, key, set);
        if (!row) return undefined;
        await bumpRevision(trx);
        return toFlag(row);
      }),
    );
  }

  /** SQLite and PostgreSQL: one UPDATE … RETURNING, which also takes the write lock first. */
  async #updateReturning(trx: Transaction<FlagpostTables>, key: string, set: Updateable<FlagsTable>): Promise<Selectable<FlagsTable> | undefined> {
    return trx.updateTable("flagpost_flags").set(set).where("key", "=", key).returningAll().executeTakeFirst();
  }

  /**
   * MySQL/MariaDB have no UPDATE … RETURNING. The locking read comes first so "no such flag" is
   * decided under the lock (and without relying on the FOUND_ROWS client flag for row counts).
   */
  async #updateThenRead(trx: Transaction<FlagpostTables>, key: string, set: Updateable<FlagsTable>): Promise<Selectable<FlagsTable> | undefined> {
    const found = await trx.selectFrom("flagpost_flags").select("key").where("key", "=", key).forUpdate().executeTakeFirst();
    if (!found) return undefined;
    await trx.updateTable("flagpost_flags").set(set).where("key", "=", key).execute();
    return trx.selectFrom("flagpost_flags").selectAll().where("key", "=", key).executeTakeFirst();
  }

  async delete(key: string): Promise<boolean> {
    return guard(this.#engine, "delete the flag", () =>
      inTransaction(this.#db, this.#engine, async (trx) => {
        const result = await trx.deleteFrom("flagpost_flags").where("key", "=", key).executeTakeFirst();
        if (result.numDeletedRows === 0n) return false;
        await bumpRevision(trx);
        return true;
      }),
    );
  }

  async revision(): Promise<number> {
    return guard(this.#engine, "read the flags revision", async () => {
      const row = await this.#db.selectFrom("flagpost_meta").select("value").where("name", "=", FLAGS_REVISION).executeTakeFirst();
      return row ? toNumber(row.value) : 0;
    });
  }
}
