import { addColumnIfAbsent, createIndexIfAbsent, createTableIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * Flag governance (docs/flags.md):
 * - `flagpost_flag_history`: one row per flag write, written in the write's transaction, never
 *   deleted with the flag; read newest first per flag through (flag_key, id).
 * - `flagpost_flags.prerequisites`: JSON list of `{flagKey, enabled}`; NULL reads as none, so
 *   existing rows need no rewrite.
 * - `flagpost_flag_insights`: evaluation counts per flag, hour and result, summed by upserts
 *   from every process; `last_at` is the newest evaluation those counts include.
 * Safe to run again over a half-finished run (MySQL cannot roll DDL back).
 */
export const flagGovernanceMigration = schemaStep(async (db, engine, t) => {
  await createTableIfAbsent(db, engine, "flagpost_flag_history")
    .addColumn("id", t.exactText(36), (c) => c.notNull().primaryKey())
    .addColumn("flag_key", t.exactText(128), (c) => c.notNull())
    .addColumn("action", t.exactText(32), (c) => c.notNull())
    .addColumn("at", t.bigint, (c) => c.notNull())
    .addColumn("actor", t.text, (c) => c.notNull())
    .addColumn("changes", t.longText, (c) => c.notNull())
    .execute();
  await createIndexIfAbsent(db, engine, "flagpost_flag_history_key_id", "flagpost_flag_history", ["flag_key", "id"]);

  await addColumnIfAbsent(db, engine, "flagpost_flags", "prerequisites", t.longText);

  await createTableIfAbsent(db, engine, "flagpost_flag_insights")
    .addColumn("flag_key", t.exactText(128), (c) => c.notNull())
    .addColumn("hour", t.bigint, (c) => c.notNull())
    .addColumn("result", t.exactText(128), (c) => c.notNull())
    .addColumn("count", t.bigint, (c) => c.notNull())
    .addColumn("last_at", t.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint("flagpost_flag_insights_pk", ["flag_key", "hour", "result"])
    .execute();
});
