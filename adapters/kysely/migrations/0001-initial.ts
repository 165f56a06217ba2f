import { insertIfAbsent } from "../dialect.js";
import { createIndexIfAbsent as createIndex, createTableIfAbsent as createTable } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * Flags, API keys, idempotency records and the meta counters. Written so that it can run again
 * over a half-finished first run: MySQL cannot roll DDL back, so a crash mid-migration must not
 * leave a schema this migration then refuses to complete.
 */

export const initialMigration = schemaStep(async (db, engine, t) => {
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
  await createIndex(db, engine, "flagpost_idempotency_expires_at", "flagpost_idempotency", ["expires_at"]);

  await createTable(db, engine, "flagpost_meta")
    .addColumn("name", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("value", t.bigint, (c) => c.notNull())
    .execute();
  await insertIfAbsent(engine, db.insertInto("flagpost_meta").values({ name: "flags_revision", value: 0 })).execute();
});
