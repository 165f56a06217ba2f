import { type RawBuilder, sql } from "kysely";
import { type Engine, type AnyKysely } from "../dialect.js";
import { createExperimentIndex, createIndexIfAbsent, createTableIfAbsent, skipCopiedRows } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";
import { engineTraits } from "../engines/index.js";

/** Where the rows are copied before the new table takes the old one's name. */
const STAGING = "flagpost_events_0017";

/** The id as 16 bytes (PostgreSQL: its `uuid` type, also 16 bytes, compared byte for byte). */
export const EVENT_ID_TYPE: Record<Engine, RawBuilder<unknown>> = {
  sqlite: sql`blob`,
  postgres: sql`uuid`,
  mysql: sql`binary(16)`,
};

/** The properties: SQLite's binary JSON (JSONB, read by its JSON functions directly); JSON text elsewhere. */
export const EVENT_PROPERTIES_TYPE: Record<Engine, RawBuilder<unknown>> = {
  sqlite: sql`blob`,
  postgres: sql`text`,
  mysql: sql`longtext`,
};

/** The old JSON text of the properties as the new column's value, in SQL. */
const PROPERTIES_FROM_TEXT: Record<Engine, RawBuilder<unknown>> = {
  sqlite: sql`jsonb(properties)`,
  postgres: sql`properties`,
  mysql: sql`properties`,
};

/** The old text id (a lower-case UUID) as the new column's value, in SQL. */
const ID_FROM_TEXT: Record<Engine, RawBuilder<unknown>> = {
  sqlite: sql`unhex(replace(id, '-', ''))`,
  postgres: sql`id::uuid`,
  mysql: sql`unhex(replace(id, '-', ''))`,
};

/**
 * Compact event storage (issue 17): the same columns with the id stored as 16 bytes instead of 36
 * characters, on SQLite the properties as JSONB (about 20% smaller than their text for typical
 * events; flagpost's nesting limit of 64 is far below SQLite's 1,000), and indexes that no longer
 * repeat the id. Each secondary index is (column, ts): the
 * engine appends the row's locator to every entry (SQLite's rowid, InnoDB's primary key, a heap
 * pointer on PostgreSQL), and ties on ts are ordered by id after the index range is read, which
 * stops as soon as the page is full. The experiment index becomes partial on SQLite too, so the
 * events that carry no experimentId (nearly all) have no entry in it.
 *
 * Existing rows are copied into the new table, which then takes the old one's name. SQLite and
 * PostgreSQL run this inside the migration's transaction; on MySQL, whose DDL cannot be rolled
 * back, every step can run again over a half-finished run (copied rows skipped, "already there" skipped).
 */
export const compactEventsMigration = schemaStep(async (db, engine, t) => {
  const current = await idColumnType(db, engine, "flagpost_events");
  if (current === undefined || isText(current)) {
    await createTableIfAbsent(db, engine, STAGING)
      .addColumn("id", EVENT_ID_TYPE[engine], (c) => c.notNull().primaryKey())
      .addColumn("ts", t.bigint, (c) => c.notNull())
      .addColumn("received_at", t.bigint, (c) => c.notNull())
      .addColumn("event", t.exactText(200), (c) => c.notNull())
      .addColumn("user_id", t.exactText(200), (c) => c.notNull())
      .addColumn("properties", EVENT_PROPERTIES_TYPE[engine], (c) => c.notNull())
      .execute();
    if (current !== undefined) {
      // Rows an interrupted run already copied are skipped; any other error (a NULL from a
      // malformed old id) still fails the run.
      const skipCopied = skipCopiedRows(engine, STAGING);
      await sql`insert into ${sql.table(STAGING)} (id, ts, received_at, event, user_id, properties)
        select ${ID_FROM_TEXT[engine]}, ts, received_at, event, user_id, ${PROPERTIES_FROM_TEXT[engine]}
        from flagpost_events where 1 = 1 ${skipCopied}`.execute(db);
      await db.schema.dropTable("flagpost_events").execute();
    }
    await db.schema.alterTable(STAGING).renameTo("flagpost_events").execute();
  }
  await createIndexIfAbsent(db, engine, "flagpost_events_user_ts", "flagpost_events", ["user_id", "ts"]);
  await createIndexIfAbsent(db, engine, "flagpost_events_event_ts", "flagpost_events", ["event", "ts"]);
  await createIndexIfAbsent(db, engine, "flagpost_events_ts", "flagpost_events", ["ts"]);
  await createExperimentIndex(db, engine);
});

function isText(type: string): boolean {
  return /char|text/i.test(type);
}

/**
 * The declared type of `table`.id, or undefined when the table does not exist. When only the
 * staging table exists (MySQL stopped between dropping the old table and renaming), it is
 * reported as the new type of "flagpost_events" after being renamed here.
 */
async function idColumnType(db: AnyKysely, engine: Engine, table: string): Promise<string | undefined> {
  const read = async (name: string) => {
    const { rows } = await engineTraits(engine).tableColumns(name).execute(db);
    return rows.find((column) => column.name === "id")?.type;
  };
  const type = await read(table);
  if (type !== undefined) return type;
  const staged = await read(STAGING);
  if (staged === undefined) return undefined;
  await db.schema.alterTable(STAGING).renameTo(table).execute();
  return staged;
}
