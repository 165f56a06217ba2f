import type { CreateTableBuilder, Migration } from "kysely";
import { columnTypes, detectEngine, type Engine, insertIfAbsent, type AnyKysely } from "../dialect.js";
import { engineTraits } from "../engines/index.js";

/**
 * Flags, API keys, idempotency records and the meta counters. Written so that it can run again
 * over a half-finished first run: MySQL cannot roll DDL back, so a crash mid-migration must not
 * leave a schema this migration then refuses to complete.
 */

function createTable<TB extends string>(db: AnyKysely, engine: Engine, name: TB): CreateTableBuilder<TB, never> {
  const builder = db.schema.createTable(name).ifNotExists();
  const options = columnTypes(engine).tableOptions;
  return options ? builder.modifyEnd(options) : builder;
}

export const initialMigration: Migration = {
  async up(db: AnyKysely): Promise<void> {
    const engine = detectEngine(db);
    const t = columnTypes(engine);

    await createTable(db, engine, "flagpost_flags")
      .addColumn("key", t.exactText(128), (c) => c.notNull().primaryKey())
      .addColumn("id", t.exactText(64), (c) => c.notNull())
      .addColumn("description", t.text, (c) => c.notNull())
      .addColumn("enabled", t.boolean, (c) => c.notNull())
      .addColumn("rules", t.longText, (c) => c.notNull())
      .addColumn("created_at", t.bigint, (c) => c.notNull())
      .addColumn("updated_at", t.bigint, (c) => c.notNull())
      .execute();

    await createTable(db, engine, "flagpost_api_keys")
      .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
      .addColumn("name", t.text, (c) => c.notNull())
      .addColumn("hash", t.exactText(64), (c) => c.notNull().unique())
      .addColumn("scopes", t.text, (c) => c.notNull())
      .addColumn("created_at", t.bigint, (c) => c.notNull())
      .addColumn("revoked_at", t.bigint)
      .execute();

    await createTable(db, engine, "flagpost_idempotency")
      .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
      .addColumn("scope", t.text, (c) => c.notNull())
      .addColumn("idempotency_key", t.text, (c) => c.notNull())
      .addColumn("fingerprint", t.text, (c) => c.notNull())
      .addColumn("locked_until", t.bigint, (c) => c.notNull())
      .addColumn("expires_at", t.bigint, (c) => c.notNull())
      .addColumn("completed", t.boolean, (c) => c.notNull())
      .addColumn("response", t.longText)
      .addColumn("created_at", t.bigint, (c) => c.notNull())
      .execute();
    await createIndex(db, engine, "flagpost_idempotency_expires_at", "flagpost_idempotency", "expires_at");

    await createTable(db, engine, "flagpost_meta")
      .addColumn("name", t.exactText(64), (c) => c.notNull().primaryKey())
      .addColumn("value", t.bigint, (c) => c.notNull())
      .execute();
    await insertIfAbsent(engine, db.insertInto("flagpost_meta").values({ name: "flags_revision", value: 0 })).execute();
  },
};

/** CREATE INDEX IF NOT EXISTS, as the engine can (engines/: MySQL ignores "already there"). */
async function createIndex(db: AnyKysely, engine: Engine, name: string, table: string, column: string): Promise<void> {
  await engineTraits(engine).createIndexIfAbsent(db, name, table, [column]);
}
