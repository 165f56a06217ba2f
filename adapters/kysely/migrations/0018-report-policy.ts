import { addColumnIfAbsent, createIndexIfAbsent, createTableIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * Delivery reports applied by reason (docs/emails.md, "Suppression"):
 * - `flagpost_suppressions` gains `reason`, `bounce_type` and `diagnostic`: why a bounce or a
 *   complaint put the address there, for people reading the list;
 * - `flagpost_soft_bounces`: one row per soft bounce of an address by an email (unique), counted
 *   within a window by the opt-in soft-bounce suppression;
 * - `flagpost_settings`: small named values the deployment shares (the generated server secret
 *   behind VERP tags, when FLAGPOST_SECRET_KEY is not set).
 * Safe to run again over a half-finished run (MySQL cannot roll DDL back).
 */
export const reportPolicyMigration = schemaStep(async (db, engine, t) => {
  await addColumnIfAbsent(db, engine, "flagpost_suppressions", "reason", t.exactText(32));
  await addColumnIfAbsent(db, engine, "flagpost_suppressions", "bounce_type", t.exactText(16));
  await addColumnIfAbsent(db, engine, "flagpost_suppressions", "diagnostic", t.text);

  await createTableIfAbsent(db, engine, "flagpost_soft_bounces")
    .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("email", t.exactText(320), (c) => c.notNull())
    .addColumn("email_id", t.exactText(64), (c) => c.notNull())
    .addColumn("at", t.bigint, (c) => c.notNull())
    .addUniqueConstraint("flagpost_soft_bounces_email_email_id", ["email", "email_id"])
    .execute();
  await createIndexIfAbsent(db, engine, "flagpost_soft_bounces_email_at", "flagpost_soft_bounces", ["email", "at"]);

  await createTableIfAbsent(db, engine, "flagpost_settings")
    .addColumn("name", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("value", t.text, (c) => c.notNull())
    .execute();
});
