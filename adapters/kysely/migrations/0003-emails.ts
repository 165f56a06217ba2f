import { createIndexIfAbsent as createIndex, createTableIfAbsent as createTable } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * The email outbox and each email's event history. Like 0001, safe to run again over a
 * half-finished run (MySQL cannot roll DDL back).
 */

export const emailsMigration = schemaStep(async (db, engine, t) => {
  await createTable(db, engine, "flagpost_emails")
    .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("status", t.exactText(16), (c) => c.notNull())
    .addColumn("content", t.longText, (c) => c.notNull())
    .addColumn("message_id", t.text, (c) => c.notNull())
    .addColumn("created_at", t.bigint, (c) => c.notNull())
    .addColumn("scheduled_at", t.bigint)
    .addColumn("sent_at", t.bigint)
    .addColumn("delivered_at", t.bigint)
    .addColumn("attempts", t.bigint, (c) => c.notNull())
    .addColumn("next_attempt_at", t.bigint, (c) => c.notNull())
    .addColumn("last_error", t.text)
    .addColumn("lease_owner", t.exactText(200))
    .addColumn("lease_until", t.bigint)
    .addColumn("version", t.bigint, (c) => c.notNull())
    .execute();
  // The claim query: queued emails by due time.
  await createIndex(db, engine, "flagpost_emails_due", "flagpost_emails", ["status", "next_attempt_at"]);

  await createTable(db, engine, "flagpost_email_events")
    .addColumn("email_id", t.exactText(64), (c) => c.notNull())
    .addColumn("seq", t.bigint, (c) => c.notNull())
    .addColumn("type", t.exactText(32), (c) => c.notNull())
    .addColumn("at", t.bigint, (c) => c.notNull())
    .addColumn("detail", t.longText)
    .addPrimaryKeyConstraint("flagpost_email_events_pk", ["email_id", "seq"])
    .execute();
});
