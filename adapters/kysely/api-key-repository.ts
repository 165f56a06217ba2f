import type { Kysely, Selectable } from "kysely";
import type { Scope } from "../../src/auth/scopes.js";
import type { ApiKeyRecord, ApiKeyRepository } from "../../src/storage/index.js";
import type { Engine } from "./dialect.js";
import { guard } from "./driver-errors.js";
import { toEpochMs, toIso } from "./row-codec.js";
import type { ApiKeysTable, FlagpostTables } from "./tables.js";

type Db = Kysely<FlagpostTables>;

function toApiKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  const record: ApiKeyRecord = {
    id: row.id,
    name: row.name,
    hash: row.hash,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: toIso(row.created_at),
  };
  if (row.revoked_at !== null) record.revokedAt = toIso(row.revoked_at);
  return record;
}

/** API keys in `flagpost_api_keys`: primary key `id`, unique `hash`. */
export class KyselyApiKeyRepository implements ApiKeyRepository {
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
      created_at: toEpochMs(record.createdAt, "createdAt"),
      revoked_at: record.revokedAt === undefined ? null : toEpochMs(record.revokedAt, "revokedAt"),
    };
    await guard(
      this.#engine,
      "store the API key",
      async () => {
        await this.#db.insertInto("flagpost_api_keys").values(row).execute();
      },
      "That API key already exists",
    );
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return guard(this.#engine, "read the API key", async () => {
      const row = await this.#db
        .selectFrom("flagpost_api_keys")
        .selectAll()
        .where("hash", "=", hash)
        .executeTakeFirst();
      return row && toApiKey(row);
    });
  }

  async list(): Promise<ApiKeyRecord[]> {
    return guard(this.#engine, "list API keys", async () => {
      const rows = await this.#db
        .selectFrom("flagpost_api_keys")
        .selectAll()
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map(toApiKey);
    });
  }

  async revoke(id: string, at: string): Promise<boolean> {
    const revokedAt = toEpochMs(at, "at");
    return guard(this.#engine, "revoke the API key", async () => {
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
    });
  }
}
