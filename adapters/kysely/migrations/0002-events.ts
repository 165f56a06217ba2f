import { createIndexIfAbsent, createTableIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * The events table and its three keyset indexes. Like 0001, safe to run again over a
 * half-finished run (MySQL cannot roll DDL back).
 *
 * Each index ends with (ts, id), the order queries read in (newest first), so a filtered page is one
 * backward range scan that stops after `limit` rows, without a sort:
 * - (user_id, ts, id) for "this user's events", (event, ts, id) for "this event in a window",
 * - (ts, id) for windows and unfiltered pages.
 */
export const eventsMigration = schemaStep(async (db, engine, t) => {
  await createTableIfAbsent(db, engine, "flagpost_events")
    .addColumn("id", t.exactText(36), (c) => c.notNull().primaryKey())
    .addColumn("event", t.exactText(200), (c) => c.notNull())
    .addColumn("user_id", t.exactText(200), (c) => c.notNull())
    .addColumn("ts", t.bigint, (c) => c.notNull())
    .addColumn("received_at", t.bigint, (c) => c.notNull())
    .addColumn("properties", t.longText, (c) => c.notNull())
    .execute();

  await createIndexIfAbsent(db, engine, "flagpost_events_user_ts_id", "flagpost_events", ["user_id", "ts", "id"]);
  await createIndexIfAbsent(db, engine, "flagpost_events_event_ts_id", "flagpost_events", ["event", "ts", "id"]);
  await createIndexIfAbsent(db, engine, "flagpost_events_ts_id", "flagpost_events", ["ts", "id"]);
});
