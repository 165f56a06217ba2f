import type { Kysely } from "kysely";
import type { SettingsRepository } from "../../src/ports/storage/index.js";
import { type Engine, insertIfAbsent } from "./dialect.js";
import type { StorageActions } from "./storage-errors.js";
import type { FlagpostTables } from "./tables.js";

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
    await insertIfAbsent(
      this.#engine,
      this.#db.insertInto("flagpost_settings").values({ name, value: initial }),
    ).execute();
    return (await read())!.value;
  }
}
