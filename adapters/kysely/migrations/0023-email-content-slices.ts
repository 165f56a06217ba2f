import { addColumnIfAbsent, createIndexIfAbsent, createTableIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * Large email content in slices (docs/emails.md, "How a large email is stored"):
 * - `flagpost_email_content_slices`: one row per slice of at most 1 MiB, numbered from 0 by `seq`,
 *   each written in its own short transaction before the email's row; `created_at` lets the purge
 *   tell a slice whose email never committed (older than an insert can take) from one being written.
 * - `flagpost_emails.content_slice_bytes`: how many bytes the email's slices hold; NULL when the
 *   whole content is in `content` (small emails, and every email stored before this migration).
 * Safe to run again (MySQL cannot roll DDL back).
 */
export const emailContentSlicesMigration = schemaStep(async (db, engine, t) => {
  await createTableIfAbsent(db, engine, "flagpost_email_content_slices")
    .addColumn("email_id", t.exactText(64), (c) => c.notNull())
    .addColumn("seq", t.bigint, (c) => c.notNull())
    .addColumn("bytes", t.bytes, (c) => c.notNull())
    .addColumn("created_at", t.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint("flagpost_email_content_slices_pk", ["email_id", "seq"])
    .execute();
  await createIndexIfAbsent(db, engine, "flagpost_email_content_slices_created", "flagpost_email_content_slices", [
    "created_at",
  ]);
  await addColumnIfAbsent(db, engine, "flagpost_emails", "content_slice_bytes", t.bigint);
});
