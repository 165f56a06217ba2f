import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { MIGRATION_TABLE, migrateTo } from "../../adapters/kysely/migrations.js";
import type { EventRecord } from "../../src/ports/storage/events.js";
import { type Backend, BACKENDS, createTestDatabase, describeIfBackend } from "../support/databases.js";

/**
 * Migration 0022 (interned event names) on a database that holds events in the layout of 0017: every
 * row survives with its name, the dictionary holds each distinct name once (names that differ only
 * by a trailing space or a normal form stay two names, MySQL included), queries and experiment
 * results read the rows as before, and new events reuse the names' ids. (The memory backend keeps
 * nothing across restarts, so it has nothing to migrate.)
 */

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0, 0);
const idOf = (n: number) => `0190aaaa-bbbb-7ccc-8ddd-${n.toString(16).padStart(12, "0")}`;

interface Row {
  id: string;
  event: string;
  user_id: string;
  ts: number;
  received_at: number;
  properties: string;
}

const ROWS: Row[] = [
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
    id: idOf(3),
    event: "purchase",
    user_id: "u1",
    ts: T0 + 2000,
    received_at: T0 + 2005,
    properties: '{"revenue":12.5}',
  },
  { id: idOf(4), event: "purchase ", user_id: "u2", ts: T0 + 3000, received_at: T0 + 3005, properties: '{"n":1}' },
  { id: idOf(5), event: "café", user_id: "u2", ts: T0 + 4000, received_at: T0 + 4005, properties: '{"n":2}' },
  { id: idOf(6), event: "cafe\u0301", user_id: "u2", ts: T0 + 5000, received_at: T0 + 5005, properties: '{"n":3}' },
  { id: idOf(7), event: "purchase", user_id: "u3", ts: T0 + 6000, received_at: T0 + 6005, properties: '{"n":4}' },
];

const record = (row: Row): EventRecord => ({
  id: row.id,
  event: row.event,
  userId: row.user_id,
  timestamp: row.ts,
  receivedAt: row.received_at,
  properties: JSON.parse(row.properties) as Record<string, unknown>,
});

/** A row as migration 0017's table holds it (16-byte ids; JSONB on SQLite). */
const compact = (backend: Backend) => (row: Row) => ({
  ...row,
  id: backend === "postgres" ? row.id : Buffer.from(row.id.replaceAll("-", ""), "hex"),
  properties: backend === "sqlite" ? sql`jsonb(${row.properties})` : row.properties,
});

const newestFirst = [...ROWS].reverse().map(record);

async function dictionary(db: Parameters<typeof migrateTo>[0]): Promise<string[]> {
  const { rows } = await sql<{ name: string | Uint8Array }>`select name from flagpost_event_names`.execute(db);
  return rows.map((r) => (typeof r.name === "string" ? r.name : Buffer.from(r.name).toString("utf8"))).sort();
}

for (const backend of BACKENDS) {
  describeIfBackend(backend, `events migration 0022 on ${backend}`, () => {
    describe(`events migration 0022 on ${backend}`, () => {
      it("interns the names of stored events and keeps what queries and experiment results read", async () => {
        const database = await createTestDatabase(backend);
        try {
          await migrateTo(database.db, backend, "0020-domain-reputation");
          await database.db
            .insertInto("flagpost_events")
            .values(ROWS.map(compact(backend)))
            .execute();

          const storage = kyselyStorage(database.db);
          await storage.migrate();
          expect(await dictionary(database.db)).toEqual(
            ["assigned", "café", "cafe\u0301", "purchase", "purchase ", "signup"].sort(),
          );
          expect(await storage.events.queryEvents({}, undefined, 10)).toEqual(newestFirst);
          for (const name of ["purchase", "purchase ", "café", "cafe\u0301"])
            expect(await storage.events.queryEvents({ event: name }, undefined, 10)).toEqual(
              newestFirst.filter((e) => e.event === name),
            );
          expect(await storage.experiments.experimentTotals({ experimentId: "exp", metric: "purchase" })).toMatchObject(
            { variants: [{ variant: "a", users: 1, conversions: 1, revenue: 12.5 }], excludedUsers: 0 },
          );

          // A new event with a stored name reuses its id; a new name is added once.
          const next = { event: "purchase", userId: "u4", timestamp: T0 + 7000, receivedAt: T0 + 7005 };
          await storage.events.appendEvents([
            { ...next, id: idOf(8), propertiesJson: "{}" },
            { ...next, id: idOf(9), event: "refund", propertiesJson: "{}" },
          ]);
          expect(await dictionary(database.db)).toHaveLength(7);
          expect((await storage.events.queryEvents({ event: "purchase" }, undefined, 10)).map((e) => e.id)).toEqual([
            idOf(8),
            idOf(7),
            idOf(3),
          ]);

          // Running the migrations again changes nothing.
          await storage.migrate();
          expect((await storage.events.queryEvents({}, undefined, 10)).slice(2)).toEqual(newestFirst);
          await storage.close();
        } finally {
          await database.drop();
        }
      });

      it("finishes a run interrupted after the old table was dropped and before the copy took its name", async () => {
        // MySQL cannot roll DDL back, so a crash can leave this state; the steps are the same on every engine.
        const database = await createTestDatabase(backend);
        try {
          await migrateTo(database.db, backend, "0020-domain-reputation");
          await database.db
            .insertInto("flagpost_events")
            .values(ROWS.map(compact(backend)))
            .execute();
          await migrateTo(database.db, backend, "0022-event-names");
          await database.db.schema.alterTable("flagpost_events").renameTo("flagpost_events_0022").execute();
          await database.db.deleteFrom(MIGRATION_TABLE).where("name", "=", "0022-event-names").execute();

          const storage = kyselyStorage(database.db);
          await storage.migrate();
          expect(await storage.events.queryEvents({}, undefined, 10)).toEqual(newestFirst);
          expect(await storage.events.queryEvents({ event: "purchase " }, undefined, 10)).toEqual([newestFirst[3]]);
          await storage.close();
        } finally {
          await database.drop();
        }
      });
    });
  });
}
