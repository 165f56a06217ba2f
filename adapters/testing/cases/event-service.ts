import { describe, expect, it } from "vitest";
import { createFlagpost } from "../../../src/flagpost.js";
import { silentLogger } from "../../../src/ports/logger.js";
import type { StorageHarness } from "../harness.js";
import { failure, iso, T0 } from "./event-fixtures.js";
import { useStorage } from "./use-storage.js";

/** The event service over a storage: time zones, the cursor walk, retention. */
export function eventServiceCases(harness: StorageHarness): void {
  describe("events: through the service", () => {
    const storage = useStorage(harness);
    const NOW = T0 + 30 * 86_400_000;
    const open = () => createFlagpost({ storage: storage(), clock: { now: () => NOW }, logger: silentLogger });

    it("normalises time zones to UTC and compares instants, whatever zone the window is written in", async () => {
      const fp = open();
      await fp.events.trackBatch([
        { event: "tz", userId: "u", timestamp: "2026-03-04T10:00:00+05:30" }, // 04:30Z
        { event: "tz", userId: "u", timestamp: "2026-03-03T23:59:59.999-05:00" }, // 04:59:59.999Z
        { event: "tz", userId: "u", timestamp: "2026-03-04T05:00:00Z" },
        { event: "tz", userId: "u", timestamp: "2026-03-04T05:00:00.1234567Z" }, // ms kept, the rest dropped
      ]);
      const page = await fp.events.query({ event: "tz" });
      expect(page.data.map((e) => e.timestamp)).toEqual([
        "2026-03-04T05:00:00.123Z",
        "2026-03-04T05:00:00.000Z",
        "2026-03-04T04:59:59.999Z",
        "2026-03-04T04:30:00.000Z",
      ]);
      const window = await fp.events.query({
        event: "tz",
        from: "2026-03-04T07:00:00+02:00",
        to: "2026-03-04T06:00:00.123+01:00",
      });
      expect(window.data.map((e) => e.timestamp)).toEqual(["2026-03-04T05:00:00.000Z"]);
      expect(page.data.every((e) => e.receivedAt === iso(NOW))).toBe(true);
    });

    it("walks pages with the cursor and refuses it under other filters", async () => {
      const fp = open();
      await fp.events.trackBatch(
        Array.from({ length: 25 }, (_, n) => ({ event: "walk", userId: `u${n % 2}`, timestamp: iso(T0 + (n % 5)) })),
      );
      const walked: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await fp.events.query({ event: "walk", limit: 4, cursor });
        walked.push(...page.data.map((e) => e.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(walked).toEqual((await fp.events.query({ event: "walk", limit: 1000 })).data.map((e) => e.id));
      const first = await fp.events.query({ event: "walk", limit: 4 });
      const error = await failure(fp.events.query({ event: "walk", userId: "u1", limit: 4, cursor: first.nextCursor }));
      expect(error.code).toBe("validation_error");
      expect(error.details).toEqual([{ path: "cursor", message: expect.stringContaining("other filters") }]);
    });

    it("purges and deletes by user through the service", async () => {
      const fp = open();
      await fp.events.trackBatch([
        { event: "r", userId: "keep", timestamp: "2026-03-05T00:00:00Z" },
        { event: "r", userId: "keep", timestamp: "2026-03-03T00:00:00Z" },
        { event: "r", userId: "forget", timestamp: "2026-03-05T00:00:00Z" },
      ]);
      expect(await fp.events.purgeBefore("2026-03-04")).toBe(1);
      expect(await fp.events.deleteByUser("forget")).toBe(1);
      expect((await fp.events.query()).data.map((e) => [e.userId, e.timestamp])).toEqual([
        ["keep", "2026-03-05T00:00:00.000Z"],
      ]);
    });
  });
}
