import { describe, expect, it } from "vitest";
import type { EventKey, EventRecord } from "../../../src/ports/storage/events.js";
import { describeCapability, type StorageHarness } from "../harness.js";
import { all, event, failure, ids, idOf, random, record, T0 } from "./event-fixtures.js";
import { eventNameCases } from "./event-names.js";
import { eventServiceCases } from "./event-service.js";
import { useReopenedStorage, useStorage } from "./use-storage.js";

export function eventCases(harness: StorageHarness): void {
  describe("events", () => {
    const storage = useStorage(harness);

    it("reads back every field as appended, in fresh objects", async () => {
      const e = event(1, {
        event: "Purchase ✓",
        userId: "user-ü-😀",
        propertiesJson: JSON.stringify({
          revenue: 12.5,
          currency: "EUR",
          nested: { list: [1, "two", null, true] },
          quote: "\"'\\",
          emoji: "😀",
        }),
      });
      await storage().events.appendEvents([e]);
      const [read] = await all(storage());
      expect(read).toEqual(record(e));
      read!.properties.revenue = 0;
      expect((await all(storage()))[0]).toEqual(record(e));
    });

    it("accepts an empty batch and stores nothing", async () => {
      await storage().events.appendEvents([]);
      expect(await all(storage())).toEqual([]);
    });

    it("orders newest first and breaks timestamp ties by id, descending", async () => {
      const same = T0;
      const batch = [
        event(3, { timestamp: same }),
        event(1, { timestamp: same }),
        event(7, { timestamp: T0 - 1 }),
        event(2, { timestamp: same }),
        event(9, { timestamp: T0 + 1 }),
      ];
      await storage().events.appendEvents(batch);
      expect(await ids(storage())).toEqual([idOf(9), idOf(3), idOf(2), idOf(1), idOf(7)]);
    });

    it("pages strictly after a key, ties included, and respects the limit", async () => {
      const same = T0;
      await storage().events.appendEvents([1, 2, 3, 4, 5].map((n) => event(n, { timestamp: n <= 3 ? same : T0 - n })));
      const after: EventKey = { timestamp: same, id: idOf(2) };
      expect((await storage().events.queryEvents({}, after, 10)).map((e) => e.id)).toEqual([idOf(1), idOf(4), idOf(5)]);
      expect((await storage().events.queryEvents({}, after, 2)).map((e) => e.id)).toEqual([idOf(1), idOf(4)]);
      expect(await storage().events.queryEvents({}, { timestamp: T0 - 5, id: idOf(5) }, 10)).toEqual([]);
    });

    it("filters by userId and event exactly: case, spaces and accents count", async () => {
      const users = ["u1", "U1", "u1 ", " u1", "ü1", "u\u0308"];
      await storage().events.appendEvents(
        users.map((userId, i) => event(i, { userId, event: i % 2 === 0 ? "click" : "Click" })),
      );
      for (const [i, userId] of users.entries()) expect(await ids(storage(), { userId })).toEqual([idOf(i)]);
      expect(await ids(storage(), { event: "click" })).toEqual([idOf(4), idOf(2), idOf(0)]);
      expect(await ids(storage(), { event: "click " })).toEqual([]);
      expect(await ids(storage(), { userId: "u1 ", event: "Click" })).toEqual([]);
      expect(await ids(storage(), { userId: "U1", event: "Click" })).toEqual([idOf(1)]);
    });

    it("windows are half-open: from inclusive, to exclusive; adjacent windows partition", async () => {
      await storage().events.appendEvents([0, 1, 2, 3, 4, 5].map((n) => event(n, { timestamp: T0 + n })));
      expect(await ids(storage(), { from: T0 + 1, to: T0 + 3 })).toEqual([idOf(2), idOf(1)]);
      expect(await ids(storage(), { from: T0 + 3 })).toEqual([idOf(5), idOf(4), idOf(3)]);
      expect(await ids(storage(), { to: T0 + 1 })).toEqual([idOf(0)]);
      expect(await ids(storage(), { from: T0 + 2, to: T0 + 3 })).toEqual([idOf(2)]);
      const left = await ids(storage(), { from: T0, to: T0 + 4 });
      const right = await ids(storage(), { from: T0 + 4, to: T0 + 6 });
      expect([...right, ...left]).toEqual(await ids(storage()));
    });

    it("combines filters, window and key", async () => {
      const batch = Array.from({ length: 20 }, (_, n) =>
        event(n, { userId: n % 2 === 0 ? "even" : "odd", event: n % 3 === 0 ? "a" : "b", timestamp: T0 + n }),
      );
      await storage().events.appendEvents(batch);
      const expected = batch
        .filter((_e, n) => n % 2 === 0 && n % 3 === 0 && n >= 3 && n < 18)
        .map((e) => e.id)
        .reverse();
      expect(await ids(storage(), { userId: "even", event: "a", from: T0 + 3, to: T0 + 18 })).toEqual(expected); // 12, 6
      const page = await storage().events.queryEvents(
        { userId: "even", event: "a", from: T0 + 3, to: T0 + 18 },
        { timestamp: T0 + 12, id: idOf(12) },
        10,
      );
      expect(page.map((e) => e.id)).toEqual([idOf(6)]);
    });

    it("stores names of 200 characters, 4-byte characters and 32 KiB of properties exactly", async () => {
      const long = "😀".repeat(100); // 200 UTF-16 units, 400 bytes of UTF-8
      const text = "é".repeat(16_000); // 32,000 bytes of UTF-8
      const e = event(1, { event: long, userId: `${"x".repeat(199)}é`, propertiesJson: JSON.stringify({ text }) });
      await storage().events.appendEvents([e]);
      expect(await all(storage(), { userId: e.userId, event: long })).toEqual([record(e)]);
    });

    it("stores nothing of a batch that fails mid-way (a duplicate id in its last statement)", async () => {
      // 200 events of ~30 KB take more than one statement on every SQL engine.
      const padding = "x".repeat(30_000);
      const batch = Array.from({ length: 200 }, (_, n) => event(n, { propertiesJson: JSON.stringify({ n, padding }) }));
      batch.push(event(0, { propertiesJson: "{}" }));
      const error = await failure(storage().events.appendEvents(batch));
      expect(error.code).toBe("conflict");
      expect(await all(storage())).toEqual([]);
      await storage().events.appendEvents(batch.slice(0, 3)); // and the ids are free
      expect(await ids(storage())).toHaveLength(3);
    });

    it("stores nothing of a batch whose id is already stored", async () => {
      await storage().events.appendEvents([event(5)]);
      const error = await failure(
        storage().events.appendEvents([event(1), event(2), event(5, { userId: "someone-else" }), event(6)]),
      );
      expect(error.code).toBe("conflict");
      expect(await all(storage())).toEqual([record(event(5))]);
    });

    it("refuses a time that is no whole number of milliseconds, and stores nothing", async () => {
      for (const timestamp of [T0 + 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        const error = await failure(storage().events.appendEvents([event(1), event(2, { timestamp })]));
        expect(error.code).toBe("validation_error");
        expect(error.details?.[0]?.path).toBe("timestamp");
      }
      const error = await failure(storage().events.appendEvents([event(1, { receivedAt: Number.NaN })]));
      expect(error.code).toBe("validation_error");
      expect((await failure(storage().events.queryEvents({ from: T0 + 0.5 }, undefined, 10))).code).toBe(
        "validation_error",
      );
      expect((await failure(storage().events.purgeEventsBefore(Number.NaN))).code).toBe("validation_error");
      expect(await all(storage())).toEqual([]);
    });

    it("completes an idempotency claim with the batch, and not when the batch fails", async () => {
      const claim = (key: string) => ({
        scope: "s",
        key,
        fingerprint: "f",
        now: T0,
        lockedUntil: T0 + 60_000,
        expiresAt: T0 + 86_400_000,
      });
      expect(await storage().idempotency.begin(claim("ok"))).toEqual({ state: "started" });
      await storage().events.appendEvents([event(1)], { scope: "s", key: "ok", response: [{ id: idOf(1) }] });
      expect(await storage().idempotency.begin(claim("ok"))).toEqual({ state: "replay", response: [{ id: idOf(1) }] });

      expect(await storage().idempotency.begin(claim("bad"))).toEqual({ state: "started" });
      await failure(storage().events.appendEvents([event(2), event(1)], { scope: "s", key: "bad", response: "no" }));
      expect(await storage().idempotency.begin(claim("bad"))).toEqual({ state: "in_progress" });
      expect(await ids(storage())).toEqual([idOf(1)]);
    });

    it("a cursor walk sees every event exactly once while inserts continue", async () => {
      const next = random(42);
      // Even ids for the events there at the start, odd ids for those landing during the walk, so
      // landing events with the key's timestamp fall on both sides of the key.
      const initial = Array.from({ length: 240 }, (_, k) =>
        event(2 * (k * 7 + 3), { timestamp: T0 + Math.floor(next() * 60) * 1000 }),
      );
      await storage().events.appendEvents(initial);
      const used = new Set<number>();
      const landingId = () => {
        let n: number;
        do n = 2 * Math.floor(next() * 2000) + 1;
        while (used.has(n));
        used.add(n);
        return n;
      };
      const seen: EventRecord[] = [];
      let after: EventKey | undefined;
      for (let page = 0; page < 1000; page++) {
        const rows = await storage().events.queryEvents({}, after, 7);
        seen.push(...rows);
        if (rows.length < 7) break;
        const last = rows.at(-1)!;
        after = { timestamp: last.timestamp, id: last.id };
        const lastMs = last.timestamp;
        await storage().events.appendEvents(
          [lastMs + 1000, lastMs - 1000, lastMs, lastMs, lastMs].map((ms) => event(landingId(), { timestamp: ms })),
        );
      }
      const seenIds = seen.map((e) => e.id);
      expect(new Set(seenIds).size).toBe(seenIds.length);
      for (const e of initial) expect(seenIds.filter((id) => id === e.id)).toHaveLength(1);
      for (let i = 1; i < seen.length; i++) {
        const [a, b] = [seen[i - 1]!, seen[i]!];
        expect(a.timestamp > b.timestamp || (a.timestamp === b.timestamp && a.id > b.id)).toBe(true);
      }
      // Landing events older than the key were seen too (and those newer were not).
      expect(seen.length).toBeGreaterThan(initial.length);
    });

    it("purges events strictly before a time and says how many", async () => {
      await storage().events.appendEvents([0, 1, 2, 3].map((n) => event(n, { timestamp: T0 + n })));
      expect(await storage().events.purgeEventsBefore(T0 + 2)).toBe(2);
      expect(await ids(storage())).toEqual([idOf(3), idOf(2)]);
      expect(await storage().events.purgeEventsBefore(T0 + 2)).toBe(0);
    });

    it("deletes exactly one user's events and says how many", async () => {
      await storage().events.appendEvents([
        event(1, { userId: "u1" }),
        event(2, { userId: "u1 " }),
        event(3, { userId: "U1" }),
        event(4, { userId: "u1" }),
        event(5, { userId: "u2" }),
      ]);
      expect(await storage().events.deleteEventsByUser("u1")).toBe(2);
      expect(await ids(storage())).toEqual([idOf(5), idOf(3), idOf(2)]);
      expect(await storage().events.deleteEventsByUser("nobody")).toBe(0);
    });
  });

  eventServiceCases(harness);
  eventNameCases(harness);

  describeCapability(harness, "durable", "events durability", "reopen", () => {
    const durable = useReopenedStorage(harness);

    it("keeps appended events across close and reopen", async () => {
      let current = await durable.create();
      await current.events.appendEvents([event(1), event(2)]);
      current = await durable.reopen(current);
      expect(await ids(current)).toEqual([idOf(2), idOf(1)]);
    });
  });
}
