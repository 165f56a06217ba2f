import { type CompiledQuery, Kysely, type LogEvent, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import type { EventFilter } from "../../src/ports/storage/index.js";
import { createTestDatabase, describeIfBackend } from "../support/databases.js";

/**
 * Which index each of the three event queries of docs/events.md reads on PostgreSQL, checked with
 * EXPLAIN on the statement the repository runs, over 60,000 events of 50 names stored in time order
 * (as they arrive) and ANALYZEd. Issue 30: given `name_id = n` and a time window, the planner read
 * the (ts) index backwards and dropped the other names' rows one by one (about 50 rows per page).
 */

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0, 0);
const EVENTS = 60_000;

/** Remembers the last read of the events a Kysely instance runs (its `log` option), to be explained. */
class LastRead {
  query: CompiledQuery | undefined;
  readonly log = (event: LogEvent): void => {
    if (event.level === "query" && /^select .* from "flagpost_events"/.test(event.query.sql)) this.query = event.query;
  };
}

describeIfBackend("postgres", "event query plans on postgres", () => {
  describe("event query plans on postgres", () => {
    it("reads the index of each filter: (user_id, ts), (name_id, ts) and (ts)", async () => {
      const database = await createTestDatabase("postgres");
      const last = new LastRead();
      // The test database's schema, through a pool of its own whose statements are logged.
      const db = new Kysely<any>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }),
        log: last.log,
      });
      try {
        const storage = kyselyStorage(db);
        await storage.migrate();
        await sql`insert into flagpost_event_names (name) select 'event_' || i from generate_series(1, 50) i`.execute(
          db,
        );
        // One event a second, names and users spread evenly, the heap in time order.
        await sql`insert into flagpost_events (id, ts, received_at, name_id, user_id, properties)
          select md5(n::text)::uuid, ${T0}::bigint + n * 1000, ${T0}::bigint + n * 1000, 1 + (n * 7) % 50,
                 'user_' || (n * 13) % 600, '{"path":"/app/' || n % 500 || '","plan":"pro"}'
          from generate_series(0, ${EVENTS - 1}) n`.execute(db);
        await sql`analyze flagpost_events`.execute(db);

        const plan = async (read: () => Promise<unknown>) => {
          await read();
          const compiled = last.query!;
          const explained = await db.executeQuery<{ "QUERY PLAN": string }>({
            ...compiled,
            sql: `explain ${compiled.sql}`,
          });
          return explained.rows.map((row) => row["QUERY PLAN"]).join("\n");
        };
        const middle = T0 + (EVENTS / 2) * 1000;
        const page = (filter: EventFilter) => () => storage.events.queryEvents(filter, undefined, 100);

        expect(await plan(page({ userId: "user_42" }))).toMatch(/flagpost_events_user_ts/);
        const byName = await plan(page({ event: "event_9", from: middle, to: middle + 3 * 3_600_000 }));
        expect(byName).toMatch(/Index Scan Backward using flagpost_events_name_ts/);
        expect(byName).not.toMatch(/Filter:/);
        const byNameOnly = await plan(page({ event: "event_9" }));
        expect(byNameOnly).toMatch(/Index Scan Backward using flagpost_events_name_ts/);
        expect(await plan(page({ from: middle, to: middle + 3_600_000 }))).toMatch(
          /Index Scan Backward using flagpost_events_ts /,
        );
        await storage.close();
      } finally {
        await db.destroy();
        await database.drop();
      }
    });
  });
});
