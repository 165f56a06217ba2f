import { type Migration, sql } from "kysely";
import { detectEngine, type AnyKysely } from "../dialect.js";
import { FLAG_CHANNEL } from "../postgres-flag-watch.js";

/**
 * PostgreSQL only (a no-op elsewhere): after every write that bumps the flags revision, notify
 * channel `flagpost_flags` with the table's schema as payload. NOTIFY is transactional, so the
 * notice goes out when the flag write commits and never for one that rolls back. A trigger rather
 * than a NOTIFY in the adapter's code, so every writer of the table is covered.
 */
export const flagNotifyMigration: Migration = {
  async up(db: AnyKysely): Promise<void> {
    if (detectEngine(db) !== "postgres") return;
    await sql`
      create or replace function flagpost_notify_flags_revision() returns trigger language plpgsql as $$
      begin
        perform pg_notify(${sql.lit(FLAG_CHANNEL)}, tg_table_schema);
        return null;
      end
      $$`.execute(db);
    await sql`drop trigger if exists flagpost_flags_revision_notify on flagpost_meta`.execute(db);
    await sql`
      create trigger flagpost_flags_revision_notify
      after update on flagpost_meta
      for each row when (new.name = 'flags_revision')
      execute function flagpost_notify_flags_revision()`.execute(db);
  },
  async down(db: AnyKysely): Promise<void> {
    if (detectEngine(db) !== "postgres") return;
    await sql`drop trigger if exists flagpost_flags_revision_notify on flagpost_meta`.execute(db);
    await sql`drop function if exists flagpost_notify_flags_revision()`.execute(db);
  },
};
