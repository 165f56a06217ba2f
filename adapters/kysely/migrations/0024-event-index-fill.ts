import type { Migration } from "kysely";
import { detectEngine, type AnyKysely } from "../dialect.js";
import { engineTraits } from "../engines/index.js";

/** The event indexes whose entries arrive only roughly in key order: the events' own timestamps. */
const TIME_ORDERED_INDEXES = ["flagpost_events_ts", "flagpost_events_name_ts"];

/**
 * PostgreSQL's `(ts)` and `(name_id, ts)` indexes go back to the default page fill (issue 30).
 * Migration 0022 set them to `fillfactor = 100` on the reasoning that their entries arrive in key
 * order; they arrive in the order of the events' own timestamps, which callers send slightly out of
 * order (buffered clients, batches). With full pages, an event a few seconds late lands on a page
 * that has already split and is full, and splits it in half: at 1,000,000 benchmark events (times
 * ±30 s of jitter) the `(ts)` index took 39.8 bytes per event at fillfactor 100 and 22.5 at the
 * default 90. `(name_id, ts)` took 30.0 and 32.5 there, but only because each of the benchmark's 50
 * names gets an event every 130 s, more than the jitter; a name that takes most events behaves as
 * `(ts)` does. The id's index keeps 100: this process's UUIDv7 ids do arrive in order.
 *
 * Only the setting changes (a catalog update, no rows are touched): pages split from now on keep
 * the room, and `REINDEX INDEX CONCURRENTLY` packs an existing index (docs/storage.md). SQLite
 * (VACUUM packs every page) and MySQL/MariaDB have no such per-index setting: nothing to do there.
 */
export const eventIndexFillMigration: Migration = {
  async up(db: AnyKysely): Promise<void> {
    const traits = engineTraits(detectEngine(db));
    for (const index of TIME_ORDERED_INDEXES) await traits.resetIndexFill(db, index);
  },
};
