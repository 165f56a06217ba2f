import type { Kysely } from "kysely";
import type { SettingsRepository } from "../../src/ports/storage/index.js";
import { type Engine, insertIfAbsent } from "./dialect.js";
import type { StorageActions } from "./storage-errors.js";
import type { FlagpostTables } from "./tables.js";
import { retryingDeadlocks } from "./transaction.js";

/**
 * Settings in `flagpost_settings`. Insert-unless-present, then read: of several processes storing
 * a first value at once, one insert wins and every one reads the winner's value.
 */
export class KyselySettingsRepository implements SettingsRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselySettingsRepository> = {
    getOrCreateSetting: "read a setting",
  };

  readonly #db: Kysely<FlagpostTables>;
  readonly #engine: Engine;

  constructor(db: Kysely<FlagpostTables>, engine: Engine) {
    this.#db = db;
    this.#engine = engine;
  }

  async getOrCreateSetting(name: string, initial: string): Promise<string> {
    const read = () =>
      this.#db.selectFrom("flagpost_settings").select("value").where("name", "=", name).executeTakeFirst();
    const found = await read();
    if (found) return found.value;
    // INSERT IGNORE does not ignore a deadlock, which first callers of one name can meet on
    // MariaDB/MySQL (retryingDeadlocks says how): the victim runs again and finds the winner's row.
    await retryingDeadlocks(this.#engine, () =>
      insertIfAbsent(this.#engine, this.#db.insertInto("flagpost_settings").values({ name, value: initial })).execute(),
    );
    return (await read())!.value;
  }
}
