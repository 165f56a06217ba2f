import type { Transaction } from "kysely";
import { FlagpostError } from "../../src/errors.js";
import type { FlagRecord, FlagRowStore, StoredPrerequisiteGraph } from "../../src/ports/storage/index.js";
import type { Engine } from "./dialect.js";
import { isUniqueViolation } from "./driver-errors.js";
import { engineTraits } from "./engines/index.js";
import { toFlag, toFlagRow } from "./flag-repository.js";
import { FLAGS_REVISION, type FlagpostTables } from "./tables.js";

type Trx = Transaction<FlagpostTables>;

/**
 * Flag rows in one transaction (unit-of-work.ts). Every write bumps `flagpost_meta`'s flags
 * revision after locking or writing its flag row, so all flag writers take their locks in one
 * order (flag row, then counter) and cannot deadlock, and the counter's lock, held to commit,
 * serializes them. Reads after the bump see every write committed before it: PostgreSQL reads
 * committed data per statement; SQLite has one writer; MySQL's REPEATABLE READ snapshot is taken
 * at a transaction's first plain read, which comes after the bump (the row lock is a locking read).
 * Driver errors pass through raw, so the transaction can be retried after a deadlock; the unit of
 * work translates what is left.
 */
export class KyselyFlagRows implements FlagRowStore {
  readonly #trx: Trx;
  readonly #engine: Engine;

  constructor(trx: Trx, engine: Engine) {
    this.#trx = trx;
    this.#engine = engine;
  }

  /**
   * PostgreSQL and MySQL lock the row (SELECT … FOR UPDATE). SQLite has no row locks and no FOR
   * UPDATE, so a no-op UPDATE takes the database's write lock before the read (reading first
   * could not upgrade to writing once another connection had written: SQLITE_BUSY_SNAPSHOT).
   */
  async lock(key: string): Promise<FlagRecord | undefined> {
    if (engineTraits(this.#engine).oneWriter) {
      const touched = await this.#trx
        .updateTable("flagpost_flags")
        .set((eb) => ({ key: eb.ref("key") }))
        .where("key", "=", key)
        .executeTakeFirst();
      if (touched.numUpdatedRows === 0n) return undefined;
    }
    const read = this.#trx.selectFrom("flagpost_flags").selectAll().where("key", "=", key);
    const row = await engineTraits(this.#engine).lockRows(read).executeTakeFirst();
    return row && toFlag(row);
  }

  async insert(flag: FlagRecord): Promise<void> {
    try {
      await this.#trx.insertInto("flagpost_flags").values(toFlagRow(this.#engine, flag)).execute();
    } catch (error) {
      if (isUniqueViolation(this.#engine, error))
        throw new FlagpostError("conflict", `A flag with key "${flag.key}" already exists`, { cause: error });
      throw error;
    }
    await this.#bumpRevision();
  }

  async replace(flag: FlagRecord): Promise<void> {
    const { key, ...row } = toFlagRow(this.#engine, flag);
    await this.#trx.updateTable("flagpost_flags").set(row).where("key", "=", key).execute();
    await this.#bumpRevision();
  }

  async delete(key: string): Promise<void> {
    await this.#trx.deleteFrom("flagpost_flags").where("key", "=", key).execute();
    await this.#bumpRevision();
  }

  async prerequisiteGraph(): Promise<StoredPrerequisiteGraph> {
    const rows = await this.#trx
      .selectFrom("flagpost_flags")
      .select(["key", "prerequisites"])
      .where("prerequisites", "is not", null)
      .where("prerequisites", "<>", "[]")
      .execute();
    const graph = new Map<string, string[]>();
    for (const row of rows) {
      const keys = (JSON.parse(row.prerequisites!) as FlagRecord["prerequisites"]).map((p) => p.flagKey);
      if (keys.length > 0) graph.set(row.key, keys);
    }
    return graph;
  }

  async existing(keys: readonly string[]): Promise<ReadonlySet<string>> {
    if (keys.length === 0) return new Set();
    const found = await this.#trx.selectFrom("flagpost_flags").select("key").where("key", "in", keys).execute();
    return new Set(found.map((row) => row.key));
  }

  /** Grows the revision; on PostgreSQL its trigger NOTIFYs the flag watchers when this commits. */
  async #bumpRevision(): Promise<void> {
    await this.#trx
      .updateTable("flagpost_meta")
      .set((eb) => ({ value: eb("value", "+", 1).$castTo<number>() }))
      .where("name", "=", FLAGS_REVISION)
      .execute();
  }
}
