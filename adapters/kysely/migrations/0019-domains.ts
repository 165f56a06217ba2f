import { createIndexIfAbsent, createTableIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * Sending domains (docs/domains.md): `flagpost_domains`, one row per domain with its DKIM key
 * (sealed under FLAGPOST_SECRET_KEY when set), the records it publishes as JSON text with their
 * last checked status, and when DNS was last asked (indexed: the periodic recheck reads the
 * least recently checked first). Safe to run again over a half-finished run (MySQL cannot roll
 * DDL back).
 */
export const domainsMigration = schemaStep(async (db, engine, t) => {
  await createTableIfAbsent(db, engine, "flagpost_domains")
    .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("name", t.exactText(253), (c) => c.notNull().unique())
    .addColumn("region", t.exactText(32), (c) => c.notNull())
    .addColumn("status", t.exactText(16), (c) => c.notNull())
    .addColumn("selector", t.exactText(64), (c) => c.notNull())
    .addColumn("private_key", t.text, (c) => c.notNull())
    .addColumn("return_path", t.exactText(253), (c) => c.notNull())
    .addColumn("records", t.text, (c) => c.notNull())
    .addColumn("open_tracking", t.boolean, (c) => c.notNull())
    .addColumn("click_tracking", t.boolean, (c) => c.notNull())
    .addColumn("tls", t.exactText(16), (c) => c.notNull())
    .addColumn("created_at", t.bigint, (c) => c.notNull())
    .addColumn("updated_at", t.bigint, (c) => c.notNull())
    .addColumn("checked_at", t.bigint)
    .execute();
  await createIndexIfAbsent(db, engine, "flagpost_domains_checked_at", "flagpost_domains", ["checked_at"]);
});
