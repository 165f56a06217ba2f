import type { Migration } from "kysely";
import { columnTypes, detectEngine, type Engine, type AnyKysely } from "../dialect.js";
import { engineTraits } from "../engines/index.js";

/**
 * The events table and its three keyset indexes. Like 0001, safe to run again over a
 * half-finished run (MySQL cannot roll DDL back).
 *
 * Each index ends with (ts, id), the order queries read in (newest first), so a filtered page is one
 * backward range scan that stops after `limit` rows, without a sort:
 * - (user_id, ts, id) for "this user's events", (event, ts, id) for "this event in a window",
 * - (ts, id) for windows and unfiltered pages.
 */
export const eventsMigration: Migration = {
  async up(db: AnyKysely): Promise<void> {
    const engine = detectEngine(db);
    const t = columnTypes(engine);
    let table = db.schema
      .createTable("flagpost_events")
      .ifNotExists()
      .addColumn("id", t.exactText(36), (c) => c.notNull().primaryKey())
      .addColumn("event", t.exactText(200), (c) => c.notNull())
      .addColumn("user_id", t.exactText(200), (c) => c.notNull())
      .addColumn("ts", t.bigint, (c) => c.notNull())
      .addColumn("received_at", t.bigint, (c) => c.notNull())
      .addColumn("properties", t.longText, (c) => c.notNull());
    if (t.tableOptions) table = table.modifyEnd(t.tableOptions);
    await table.execute();

    await createIndex(db, engine, "flagpost_events_user_ts_id", ["user_id", "ts", "id"]);
    await createIndex(db, engine, "flagpost_events_event_ts_id", ["event", "ts", "id"]);
    await createIndex(db, engine, "flagpost_events_ts_id", ["ts", "id"]);
  },
};

/** CREATE INDEX IF NOT EXISTS, as the engine can (engines/: MySQL ignores "already there"). */
async function createIndex(db: AnyKysely, engine: Engine, name: string, columns: string[]): Promise<void> {
  await engineTraits(engine).createIndexIfAbsent(db, name, "flagpost_events", columns);
}
