import { addColumnIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * `flagpost_emails.summary`: JSON text of what a list shows of the content (from, to, cc, bcc,
 * reply-to, subject), written with the email, so listing emails never reads bodies or
 * attachments (an email may carry 30 MiB). NULL on emails stored before this migration: a list
 * reads their content instead. Safe to run again (MySQL cannot roll DDL back).
 */
export const emailSummaryMigration = schemaStep(async (db, engine, t) => {
  await addColumnIfAbsent(db, engine, "flagpost_emails", "summary", t.longText);
});
