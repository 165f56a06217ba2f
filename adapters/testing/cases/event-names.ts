import { describe, expect, it } from "vitest";
import type { NewEvent } from "../../../src/ports/storage/events.js";
import { describeCapability, type StorageHarness } from "../harness.js";
import { all, event, ids, idOf, record, T0 } from "./event-fixtures.js";
import { openMigratedPair, useSharedStorages, useStorage } from "./use-storage.js";

/** Names that differ only in ways an exact comparison must see: case, spaces, normal forms, look-alikes. */
const LOOKALIKES = [
  "click",
  "Click",
  "click ",
  " click",
  "café",
  "cafe\u0301",
  "ｃｌｉｃｋ",
  "click\u200d",
  "😀",
  "😀😀",
];

/** A UUIDv7-shaped id whose 48-bit time is `ms` (as the service makes ids at receipt), ordered by n. */
const idAt = (ms: number, n: number) => {
  const hex = ms.toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7000-8000-${n.toString(16).padStart(12, "0")}`;
};

/**
 * Event names as a storage keeps them apart (an SQL storage interns them in a dictionary): many
 * names, look-alike and non-ASCII names, names first seen by another process at the same time.
 */
export function eventNameCases(harness: StorageHarness): void {
  describe("event names", () => {
    const storage = useStorage(harness);

    it("keeps 300 names apart, new in one batch or across batches, and filters by each", async () => {
      const names = Array.from({ length: 300 }, (_, i) => `name-${i}`);
      const first = names.slice(0, 150).map((name, i) => event(i, { event: name }));
      // The second batch repeats half the names and brings 150 new ones, in another order.
      const second = names
        .slice(75)
        .reverse()
        .map((name, i) => event(1000 + i, { event: name }));
      await storage().events.appendEvents(first);
      await storage().events.appendEvents(second);
      const expected = [...first, ...second].map(record).sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1));
      expect(await all(storage())).toEqual(expected);
      for (const name of ["name-0", "name-74", "name-75", "name-149", "name-150", "name-299"])
        expect(await all(storage(), { event: name })).toEqual(expected.filter((e) => e.event === name));
    });

    it("stores look-alike and non-ASCII names byte for byte, and filters each exactly", async () => {
      const batch = LOOKALIKES.map((name, i) => event(i, { event: name }));
      await storage().events.appendEvents(batch);
      expect((await all(storage())).map((e) => e.event)).toEqual([...LOOKALIKES].reverse());
      for (const [i, name] of LOOKALIKES.entries()) expect(await ids(storage(), { event: name })).toEqual([idOf(i)]);
      expect(await ids(storage(), { event: "CLICK" })).toEqual([]);
    });

    it("matches nothing for a name no event has, then finds the first event that brings it", async () => {
      await storage().events.appendEvents([event(1, { event: "seen" })]);
      expect(await ids(storage(), { event: "later" })).toEqual([]);
      await storage().events.appendEvents([event(2, { event: "later" })]);
      expect(await ids(storage(), { event: "later" })).toEqual([idOf(2)]);
    });

    it("reads receivedAt and properties back whether or not the id carries that time and the properties are empty", async () => {
      const at = T0 + 123;
      const batch: NewEvent[] = [
        { ...event(1), id: idAt(at, 1), receivedAt: at, propertiesJson: "{}" },
        { ...event(2), id: idAt(at, 2), receivedAt: at + 1, propertiesJson: '{"a":{}}' },
        { ...event(3), id: idAt(at + 1, 3), receivedAt: at, propertiesJson: "{}" },
      ];
      await storage().events.appendEvents(batch);
      expect(await all(storage())).toEqual([...batch].reverse().map(record));
    });
  });

  describeCapability(harness, "shared", "event names shared by several processes", "openShared", () => {
    const openShared = useSharedStorages(harness);

    it("two processes bringing the same new names at once agree on every name", async () => {
      const [a, b] = await openMigratedPair(openShared);
      const appended: NewEvent[] = [];
      for (let round = 0; round < 5; round++) {
        const names = Array.from({ length: 20 }, (_, i) => `race-${round}-${i}`);
        const batchA = names.map((name, i) => event(round * 100 + i, { event: name, userId: "a" }));
        // The other process brings them in the opposite order, plus one name of its own.
        const batchB = [...names, `only-b-${round}`]
          .reverse()
          .map((name, i) => event(round * 100 + 50 + i, { event: name, userId: "b" }));
        await Promise.all([a.events.appendEvents(batchA), b.events.appendEvents(batchB)]);
        appended.push(...batchA, ...batchB);
      }
      const expected = appended.map(record).sort((x, y) => (x.timestamp < y.timestamp ? 1 : -1));
      expect(await all(a)).toEqual(expected);
      expect(await all(b)).toEqual(expected);
      for (const name of ["race-0-0", "race-4-19", "only-b-3"]) {
        const matching = expected.filter((e) => e.event === name);
        expect(await all(a, { event: name })).toEqual(matching);
        expect(await all(b, { event: name })).toEqual(matching);
      }
    });
  });
}
