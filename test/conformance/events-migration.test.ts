import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { MIGRATION_TABLE, migrateTo } from "../../adapters/kysely/migrations.js";
import { eventsMigration } from "../../adapters/kysely/migrations/0002-events.js";
import type { EventRecord } from "../../src/ports/storage/events.js";
import { type Backend, BACKENDS, createTestDatabase, describeIfBackend } from "../support/databases.js";

/**
 * Migration 0017 (compact events) on a database that already holds events in the layout of 0002:
 * every row survives with its id, times and properties (16-byte ids; JSONB on SQLite), queries and experiment results read them
 * as before, and the ids keep their uniqueness. (The memory backend keeps nothing across restarts,
 * so it has nothing to migrate.)
 */

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0, 0);
const idOf = (n: number) => `0190aaaa-bbbb-7ccc-8ddd-${n.toString(16).padStart(12, "0")}`;

interface LegacyRow {
  id: string;
  event: string;
  user_id: string;
  ts: number;
  received_at: number;
  properties: string;
}

// Two events share a timestamp, so the id decides their order; one user id differs only by a space.
const LEGACY: LegacyRow[] = [
  { id: idOf(1), event: "signup", user_id: "u1", ts: T0, received_at: T0 + 5, properties: "{}" },
  {
    id: idOf(2),
    event: "assigned",
    user_id: "u1",
    ts: T0 + 1000,
    received_at: T0 + 1005,
    properties: JSON.stringify({ experimentId: "exp", variant: "a" }),
  },
  {
    id: idOf(0xfffffffff),
    event: "purchase",
    user_id: "u1",
    ts: T0 + 2000,
    received_at: T0 + 2005,
    properties: JSON.stringify({ revenue: 12.5, currency: "EUR", note: "é😀" }),
  },
  { id: idOf(3), event: "purchase", user_id: "u1 ", ts: T0 + 2000, received_at: T0 + 2006, properties: '{"n":1}' },
];

const record = (row: LegacyRow): EventRecord => ({
  id: row.id,
  event: row.event,
  userId: row.user_id,
  timestamp: row.ts,
  receivedAt: row.received_at,
  properties: JSON.parse(row.properties) as Record<string, unknown>,
});

/** A legacy row as migration 0017's table holds it (16-byte ids; JSONB on SQLite). */
const compact = (backend: Backend) => (row: LegacyRow) => ({
  ...row,
  id: backend === "postgres" ? row.id : Buffer.from(row.id.replaceAll("-", ""), "hex"),
  properties: backend === "sqlite" ? sql`jsonb(${row.properties})` : row.properties,
});

const newestFirst = [LEGACY[2]!, LEGACY[3]!, LEGACY[1]!, LEGACY[0]!].map(record);

for (const backend of BACKENDS) {
  describeIfBackend(backend, `events migration 0017 on ${backend}`, () => {
    describe(`events migration 0017 on ${backend}`, () => {
      it("keeps every stored event and what queries and experiment results read from them", async () => {
        const database = await createTestDatabase(backend);
        try {
          await migrateTo(database.db, backend, "0016-rate-limits");
          await database.db.insertInto("flagpost_events").values(LEGACY).execute();

          const storage = kyselyStorage(database.db);
          await storage.migrate();
          expect(await storage.events.queryEvents({}, undefined, 10)).toEqual(newestFirst);
          expect(await storage.events.queryEvents({ userId: "u1" }, undefined, 10)).toEqual(
            newestFirst.filter((e) => e.userId === "u1"),
          );
          expect(await storage.events.queryEvents({ event: "purchase" }, undefined, 10)).toEqual(
            newestFirst.slice(0, 2),
          );
          expect(await storage.events.queryEvents({}, { timestamp: T0 + 2000, id: idOf(0xfffffffff) }, 10)).toEqual(
            newestFirst.slice(1),
          );
          expect(await storage.experiments.experimentTotals({ experimentId: "exp", metric: "purchase" })).toMatchObject(
            { variants: [{ variant: "a", users: 1, conversions: 1, revenue: 12.5 }], excludedUsers: 0 },
          );

          // The ids are stored as 16 bytes and stay unique.
          const sizes =
            backend === "postgres"
              ? sql<{ n: number }>`select pg_column_size(id) as n from flagpost_events`
              : sql<{ n: number }>`select length(id) as n from flagpost_events`;
          expect((await sizes.execute(database.db)).rows.map((r) => Number(r.n))).toEqual([16, 16, 16, 16]);
          if (backend === "sqlite") {
            // SQLite keeps the properties as JSONB.
            const kinds = await sql<{ kind: string }>`select typeof(properties) as kind from flagpost_events`.execute(
              database.db,
            );
            expect(kinds.rows.map((r) => r.kind)).toEqual(["blob", "blob", "blob", "blob"]);
          }
          const { properties: _, ...again } = newestFirst[0]!;
          await expect(storage.events.appendEvents([{ ...again, propertiesJson: "{}" }])).rejects.toMatchObject({
            code: "conflict",
          });

          // Running the migrations again changes nothing.
          await storage.migrate();
          expect(await storage.events.queryEvents({}, undefined, 10)).toEqual(newestFirst);
          await storage.close();
        } finally {
          await database.drop();
        }
      });

      it("finishes a run interrupted in the middle of the copy", async () => {
        const database = await createTestDatabase(backend);
        try {
          // The state such a crash leaves: the old table whole, the new one holding part of its rows.
          await migrateTo(database.db, backend, "0017-compact-events");
          await database.db.schema.alterTable("flagpost_events").renameTo("flagpost_events_0017").execute();
          await database.db
            .insertInto("flagpost_events_0017")
            .values(LEGACY.slice(0, 2).map(compact(backend)))
            .execute();
          await eventsMigration.up(database.db);
          await database.db.insertInto("flagpost_events").values(LEGACY).execute();
          await database.db.deleteFrom(MIGRATION_TABLE).where("name", "=", "0017-compact-events").execute();

          const storage = kyselyStorage(database.db);
          await storage.migrate();
          expect(await storage.events.queryEvents({}, undefined, 10)).toEqual(newestFirst);
          await storage.close();
        } finally {
          await database.drop();
        }
      });

      it("finishes a run interrupted after the old table was dropped and before the copy took its name", async () => {
        // MySQL cannot roll DDL back, so a crash can leave this state; the steps are the same on every engine.
        const database = await createTestDatabase(backend);
        try {
          await migrateTo(database.db, backend, "0016-rate-limits");
          await database.db.insertInto("flagpost_events").values(LEGACY).execute();
          await migrateTo(database.db, backend, "0017-compact-events");
          await database.db.schema.alterTable("flagpost_events").renameTo("flagpost_events_0017").execute();
          await database.db.deleteFrom(MIGRATION_TABLE).where("name", "=", "0017-compact-events").execute();

          const storage = kyselyStorage(database.db);
          await storage.migrate();
          expect(await storage.events.queryEvents({}, undefined, 10)).toEqual(newestFirst);
          expect(await storage.events.queryEvents({ event: "purchase" }, undefined, 10)).toEqual(
            newestFirst.slice(0, 2),
          );
          await storage.close();
        } finally {
          await database.drop();
        }
      });
    });
  });
}
