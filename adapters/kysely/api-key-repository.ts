import type { Selectable } from "kysely";
import type { Scope } from "../../src/auth/index.js";
import type { ApiKeyRecord, ApiKeyRepository, EpochMs } from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { Engine } from "./dialect.js";
import type { StorageActions } from "./storage-errors.js";
import { toNumber } from "./row-codec.js";
import type { ApiKeysTable } from "./tables.js";
import type { Db } from "./tables.js";
import { retryingDeadlocks } from "./transaction.js";

function toApiKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  const record: ApiKeyRecord = {
    id: row.id,
    name: row.name,
    hash: row.hash,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: toNumber(row.created_at),
  };
  if (row.revoked_at !== null) record.revokedAt = toNumber(row.revoked_at);
  return record;
}

/** API keys in `flagpost_api_keys`: primary key `id`, unique `hash`. */
export class KyselyApiKeyRepository implements ApiKeyRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyApiKeyRepository> = {
    insert: { action: "store the API key", conflict: () => "That API key already exists" },
    findByHash: "read the API key",
    findById: "read the API key",
    list: "list API keys",
    revoke: "revoke the API key",
  };

  readonly #db: Db;
  readonly #engine: Engine;
  constructor(db: Db, engine: Engine) {
    this.#db = db;
    this.#engine = engine;
  }

  async insert(record: ApiKeyRecord): Promise<void> {
    const row = {
      id: record.id,
      name: record.name,
      hash: record.hash,
      scopes: JSON.stringify(record.scopes),
      created_at: checkedEpochMs(record.createdAt, "createdAt"),
      revoked_at: record.revokedAt === undefined ? null : checkedEpochMs(record.revokedAt, "revokedAt"),
    };
    // Several inserts of one hash can deadlock on MariaDB/MySQL instead of failing as duplicates
    // (retryingDeadlocks says how): the victim runs again, so the losers all read `conflict`.
    await retryingDeadlocks(this.#engine, () => this.#db.insertInto("flagpost_api_keys").values(row).execute());
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.#db.selectFrom("flagpost_api_keys").selectAll().where("hash", "=", hash).executeTakeFirst();
    return row && toApiKey(row);
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.#db.selectFrom("flagpost_api_keys").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toApiKey(row);
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.#db
      .selectFrom("flagpost_api_keys")
      .selectAll()
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(toApiKey);
  }

  async revoke(id: string, at: EpochMs): Promise<boolean> {
    const revokedAt = checkedEpochMs(at, "at");
    // The IS NULL condition keeps the first revocation time when two revocations race.
    const result = await this.#db
      .updateTable("flagpost_api_keys")
      .set({ revoked_at: revokedAt })
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) return true;
    const existing = await this.#db
      .selectFrom("flagpost_api_keys")
      .select("id")
      .where("id", "=", id)
      .executeTakeFirst();
    return existing !== undefined;
  }
}
