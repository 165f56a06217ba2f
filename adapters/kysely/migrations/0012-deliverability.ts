import { sql } from "kysely";
import { addColumnIfAbsent, createIndexIfAbsent, createTableIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * Email deliverability (docs/emails.md):
 * - `flagpost_emails` gains `last_event` (the newest event's type; NULL while the email has only
 *   its first event), `failure_reason` (why a failed email failed) and `provider_message_id` (the
 *   id a transport gave the message when it differs from the Message-ID), indexed, since provider
 *   reports name the email by it. Emails that moved on before this migration get
 *   `last_event = status`, the newest event they can have had that is a status.
 * - `flagpost_suppressions`: one row per suppressed address (lower-cased, unique), listed newest
 *   first by id, optionally by origin.
 * - `flagpost_unmatched_reports`: delivery reports that named no known email, kept for people.
 * Safe to run again over a half-finished run (MySQL cannot roll DDL back).
 */
export const deliverabilityMigration = schemaStep(async (db, engine, t) => {
  await addColumnIfAbsent(db, engine, "flagpost_emails", "last_event", t.exactText(32));
  await addColumnIfAbsent(db, engine, "flagpost_emails", "failure_reason", t.exactText(64));
  await addColumnIfAbsent(db, engine, "flagpost_emails", "provider_message_id", t.exactText(255));
  await createIndexIfAbsent(db, engine, "flagpost_emails_provider_message_id", "flagpost_emails", [
    "provider_message_id",
  ]);
  await db
    .updateTable("flagpost_emails")
    .set({ last_event: sql.ref("status") })
    .where("status", "!=", "queued")
    .where("last_event", "is", null)
    .execute();

  await createTableIfAbsent(db, engine, "flagpost_suppressions")
    .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("email", t.exactText(320), (c) => c.notNull())
    .addColumn("origin", t.exactText(16), (c) => c.notNull())
    .addColumn("source_id", t.exactText(64))
    .addColumn("created_at", t.bigint, (c) => c.notNull())
    .addUniqueConstraint("flagpost_suppressions_email", ["email"])
    .execute();
  await createIndexIfAbsent(db, engine, "flagpost_suppressions_origin_id", "flagpost_suppressions", ["origin", "id"]);

  await createTableIfAbsent(db, engine, "flagpost_unmatched_reports")
    .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("received_at", t.bigint, (c) => c.notNull())
    .addColumn("reason", t.text, (c) => c.notNull())
    .addColumn("report", t.longText, (c) => c.notNull())
    .execute();
});
