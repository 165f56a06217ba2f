import { createIndexIfAbsent as createIndex, createTableIfAbsent as createTable } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * Scheduled flag changes (docs/flags.md "Scheduled changes"): a jobs-shaped table (due time,
 * attempts, lease owner and end; adapters/kysely/job-claims.ts) whose rows stay after they are
 * applied or failed, as a record. Indexes: the claim's (status, next_attempt_at) and the list's
 * (flag_key, at, id). Safe to run again over a half-finished run (MySQL cannot roll DDL back).
 */
export const flagSchedulesMigration = schemaStep(async (db, engine, t) => {
  await createTable(db, engine, "flagpost_flag_schedules")
    .addColumn("id", t.exactText(36), (c) => c.notNull().primaryKey())
    .addColumn("flag_key", t.exactText(128), (c) => c.notNull())
    .addColumn("at", t.bigint, (c) => c.notNull())
    .addColumn("changes", t.longText, (c) => c.notNull())
    .addColumn("status", t.exactText(16), (c) => c.notNull())
    .addColumn("created_at", t.bigint, (c) => c.notNull())
    .addColumn("created_by", t.text, (c) => c.notNull())
    .addColumn("attempts", t.bigint, (c) => c.notNull())
    .addColumn("next_attempt_at", t.bigint, (c) => c.notNull())
    .addColumn("lease_owner", t.exactText(200))
    .addColumn("lease_until", t.bigint)
    .addColumn("finished_at", t.bigint)
    .addColumn("failure_reason", t.exactText(32))
    .addColumn("failure_message", t.text)
    .execute();
  await createIndex(db, engine, "flagpost_flag_schedules_due", "flagpost_flag_schedules", [
    "status",
    "next_attempt_at",
  ]);
  await createIndex(db, engine, "flagpost_flag_schedules_key_at", "flagpost_flag_schedules", ["flag_key", "at", "id"]);
});
