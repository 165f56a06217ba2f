import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { migrateTo } from "../../adapters/kysely/migrations.js";
import type { NewEvent } from "../../src/ports/storage/events.js";
import { BACKENDS, createTestDatabase, describeIfBackend } from "../support/databases.js";

/**
 * Migration 0024 (the event indexes' page fill): stored events read the same after it on every
 * engine, and on PostgreSQL the `(ts)` and `(name_id, ts)` indexes keep room for events that arrive
 * a little out of timestamp order, so such a stream no longer leaves their pages half empty.
 */

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0, 0);
const idOf = (n: number) => `0190aaaa-bbbb-7ccc-8ddd-${n.toString(16).padStart(12, "0")}`;

/** Event n of a stream one second apart whose timestamps are up to ±12 s off (a deterministic jitter). */
function jittered(n: number): NewEvent {
  const jitter = ((n * 7919) % 24_001) - 12_000;
  const ts = T0 + n * 1000 + jitter;
  return {
    id: idOf(n),
    event: `event_${n % 3}`,
    userId: `user_${n % 100}`,
    timestamp: ts,
    receivedAt: T0 + n * 1000,
    propertiesJson: "{}",
  };
}

const STORED = Array.from({ length: 20 }, (_, n) => jittered(n));

for (const backend of BACKENDS) {
  describeIfBackend(backend, `events migration 0024 on ${backend}`, () => {
    describe(`events migration 0024 on ${backend}`, () => {
      it("keeps what queries read from the events stored before it", async () => {
        const database = await createTestDatabase(backend);
        try {
          await migrateTo(database.db, backend, "0023-email-content-slices");
          const before = kyselyStorage(database.db);
          await before.events.appendEvents(STORED);
          const read = async () => ({
            all: await before.events.queryEvents({}, undefined, 100),
            user: await before.events.queryEvents({ userId: "user_4" }, undefined, 100),
            name: await before.events.queryEvents({ event: "event_1", from: T0, to: T0 + 15_000 }, undefined, 100),
          });
          const expected = await read();
          expect(expected.all).toHaveLength(STORED.length);

          await before.migrate();
          expect(await read()).toEqual(expected);
          await before.close();
        } finally {
          await database.drop();
        }
      });
    });
  });
}

describeIfBackend("postgres", "event index fill on postgres", () => {
  describe("event index fill on postgres", () => {
    it("resets the time-ordered indexes to the default fill and keeps the id's index full", async () => {
      const database = await createTestDatabase("postgres");
      try {
        const storage = kyselyStorage(database.db);
        await storage.migrate();
        const { rows } = await sql<{ name: string; options: string[] | null }>`
          select c.relname as name, c.reloptions as options from pg_class c
          join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = current_schema() and c.relname like 'flagpost_events%' and c.relkind = 'i'
          order by c.relname`.execute(database.db);
        const options = Object.fromEntries(rows.map((row) => [row.name, row.options]));
        expect(options["flagpost_events_ts"]).toBeNull();
        expect(options["flagpost_events_name_ts"]).toBeNull();
        expect(options["flagpost_events_0022_pkey"]).toEqual(["fillfactor=100"]);
        await storage.close();
      } finally {
        await database.drop();
      }
    });

    it("keeps the (ts) index's pages nearly full when timestamps arrive a few seconds out of order", async () => {
      const database = await createTestDatabase("postgres");
      try {
        const storage = kyselyStorage(database.db);
        await storage.migrate();
        const total = 20_000;
        for (let first = 0; first < total; first += 1000)
          await storage.events.appendEvents(Array.from({ length: 1000 }, (_, i) => jittered(first + i)));
        await sql`vacuum flagpost_events`.execute(database.db);
        const { rows } = await sql<{ size: string }>`select pg_relation_size('flagpost_events_ts') as size`.execute(
          database.db,
        );
        // An entry takes 20 bytes (8 of tuple header, the 8-byte ts, a 4-byte line pointer): 22 at
        // the default fill of 90%; with full pages, the late entries split pages in half (about 40).
        expect(Number(rows[0]!.size) / total).toBeLessThan(26);
        await storage.close();
      } finally {
        await database.drop();
      }
    });
  });
});
