import { sql } from "kysely";
import { expect, it } from "vitest";
import { MAX_EVENT_NAMES } from "../../adapters/kysely/event-names.js";
import { FlagpostError } from "../../src/errors.js";
import type { NewEvent } from "../../src/ports/storage/events.js";
import { BACKENDS, createTestStorage, describeIfBackend } from "../support/databases.js";

/**
 * The event-name dictionary's id is a SMALLINT (migration 0022-event-names): once it holds 32,767
 * names, a batch bringing one more is refused with a validation_error that says so, while names
 * already there are still stored.
 */

const event = (n: number, name: string): NewEvent => ({
  id: `01900000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`,
  event: name,
  userId: "u1",
  timestamp: Date.UTC(2026, 2, 4, 5, 6, 7, 89),
  receivedAt: Date.UTC(2026, 2, 4, 5, 6, 7, 94),
  propertiesJson: "{}",
});

for (const backend of BACKENDS) {
  describeIfBackend(backend, `event name limit on ${backend}`, () => {
    it(`refuses a new name once ${MAX_EVENT_NAMES} are stored, and keeps storing known ones`, async () => {
      const { storage, database } = await createTestStorage(backend);
      try {
        await storage.events.appendEvents([event(1, "n1")]);
        // The other names, in one statement: five digits from a table of ten (MariaDB caps recursion at 1,000).
        const n = sql`(a.x * 10000 + b.x * 1000 + c.x * 100 + d.x * 10 + e.x)`;
        await sql`insert into flagpost_event_names (name)
          with digits (x) as (${sql.raw(Array.from({ length: 10 }, (_, i) => `select ${i}`).join(" union all "))})
          select concat('n', ${n}) from digits a, digits b, digits c, digits d, digits e
          where ${n} between 2 and ${MAX_EVENT_NAMES}`.execute(database.db);
        const error = await storage.events.appendEvents([event(2, "one-too-many")]).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(FlagpostError);
        expect(error).toMatchObject({ code: "validation_error", details: [{ path: "event" }] });
        expect((error as Error).message).toContain("32,767 distinct event names");
        await storage.events.appendEvents([event(3, `n${MAX_EVENT_NAMES}`), event(4, "n1")]);
        expect((await storage.events.queryEvents({}, undefined, 10)).map((e) => e.event).sort()).toEqual(
          ["n1", "n1", `n${MAX_EVENT_NAMES}`].sort(),
        );
      } finally {
        await database.drop();
      }
    }, 60_000);
  });
}
