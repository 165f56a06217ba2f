import type { Migration } from "kysely";
import { columnTypes, detectEngine, type AnyKysely } from "../dialect.js";
import { addColumnIfAbsent } from "./schema-steps.js";

/**
 * `flagpost_emails.summary`: JSON text of what a list shows of the content (from, to, cc, bcc,
 * reply-to, subject), written with the email, so listing emails never reads bodies or
 * attachments (an email may carry 30 MiB). NULL on emails stored before this migration: a list
 * reads their content instead. Safe to run again (MySQL cannot roll DDL back).
 */
export const emailSummaryMigration: Migration = {
  async up(db: AnyKysely): Promise<void> {
    const engine = detectEngine(db);
    await addColumnIfAbsent(db, engine, "flagpost_emails", "summary", columnTypes(engine).longText);
  },
};
