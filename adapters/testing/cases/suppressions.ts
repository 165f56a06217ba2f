import { describe, expect, it } from "vitest";
import type { SuppressionRecord } from "../../../src/ports/storage/suppressions.js";
import { suppressionWrites } from "../../../src/emails/index.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";
import { deliveriesOf, sortedId, subscribedWebhook, T0 } from "./webhook-fixtures.js";

function entry(email: string, overrides: Partial<SuppressionRecord> = {}): SuppressionRecord {
  return { id: sortedId(5), email, origin: "manual", createdAt: T0, ...overrides };
}

/** The suppression list: unique by (lower-cased) address, newest first, events with each change. */
export function suppressionCases(harness: StorageHarness): void {
  describe("suppressions", () => {
    const storage = useStorage(harness);
    /** Adds through the core's unit of work, as every caller does; answers the entries as stored. */
    const add = async (entries: SuppressionRecord[]) => (await suppressionWrites(storage()).add(entries, T0)).stored;
    const remove = (keys: string[]) => suppressionWrites(storage()).remove(keys, T0);

    it("adds entries once per address, keeps the first, and finds them by id or address", async () => {
      const ann = entry("ann@example.com", { origin: "bounce", sourceId: "0198aaaa-0000-7000-8000-000000000001" });
      const bob = entry("bob@example.com");
      const stored = await add([ann, bob, entry("ann@example.com")]);
      expect(stored).toEqual([ann, bob, ann]);
      const again = await add([entry("bob@example.com", { origin: "complaint" })]);
      expect(again).toEqual([bob]);
      expect(await storage().suppressions.getSuppression(ann.id)).toEqual(ann);
      expect(await storage().suppressions.getSuppression("bob@example.com")).toEqual(bob);
      expect(await storage().suppressions.getSuppression("nobody@example.com")).toBeUndefined();
      expect(await add([])).toEqual([]);
    });

    it("says which addresses are suppressed", async () => {
      await add([entry("a@example.com"), entry("b@example.com")]);
      const found = await storage().suppressions.suppressedAmong([
        "b@example.com",
        "c@example.com",
        "a@example.com",
        "b@example.com",
      ]);
      expect(found.sort()).toEqual(["a@example.com", "b@example.com"]);
      expect(await storage().suppressions.suppressedAmong([])).toEqual([]);
      const many = Array.from({ length: 250 }, (_, i) => `u${i}@example.com`);
      await add(many.filter((_, i) => i % 50 === 0).map((e) => entry(e)));
      expect((await storage().suppressions.suppressedAmong(many)).sort()).toEqual([
        "u0@example.com",
        "u100@example.com",
        "u150@example.com",
        "u200@example.com",
        "u50@example.com",
      ]);
    });

    it("lists newest first, paged by id, optionally by origin", async () => {
      const entries = ["a", "b", "c", "d", "e"].map((name, i) =>
        entry(`${name}@example.com`, { origin: i % 2 === 0 ? "bounce" : "complaint" }),
      );
      await add(entries);
      const ids = (list: SuppressionRecord[]) => list.map((s) => s.email[0]).join("");
      expect(ids(await storage().suppressions.listSuppressions({}, { limit: 10 }))).toBe("edcba");
      expect(ids(await storage().suppressions.listSuppressions({}, { limit: 2 }))).toBe("ed");
      expect(ids(await storage().suppressions.listSuppressions({}, { limit: 2, after: entries[3]!.id }))).toBe("cb");
      expect(ids(await storage().suppressions.listSuppressions({}, { limit: 2, before: entries[1]!.id }))).toBe("dc");
      expect(ids(await storage().suppressions.listSuppressions({ origin: "bounce" }, { limit: 10 }))).toBe("eca");
      expect(ids(await storage().suppressions.listSuppressions({ origin: "manual" }, { limit: 10 }))).toBe("");
    });

    it("removes by id or address, and leaves out what names nothing", async () => {
      const [a, b, c] = [entry("a@example.com"), entry("b@example.com"), entry("c@example.com")];
      await add([a, b, c]);
      const removed = await remove([a.id, "b@example.com", "x@example.com", a.id]);
      expect(removed.map((s) => s.email).sort()).toEqual(["a@example.com", "b@example.com"]);
      expect(await storage().suppressions.suppressedAmong(["a@example.com", "b@example.com", "c@example.com"])).toEqual(
        ["c@example.com"],
      );
      expect(await remove(["a@example.com"])).toEqual([]);
      // Removed addresses can be added again.
      const back = entry("a@example.com", { origin: "complaint" });
      expect(await add([back])).toEqual([back]);
    });

    it("stores suppression.added and suppression.removed with the change, once per entry changed", async () => {
      const hook = await subscribedWebhook(storage(), ["suppression.added", "suppression.removed"]);
      const writes = suppressionWrites(storage());
      const first = await writes.add([entry("a@example.com"), entry("b@example.com")], T0);
      expect(first.added.map((s) => s.email)).toEqual(["a@example.com", "b@example.com"]);
      expect((await writes.add([entry("a@example.com")], T0)).added).toEqual([]);
      await writes.remove(["a@example.com", "zzz@example.com"], T0);
      expect(await deliveriesOf(storage(), [hook])).toEqual([
        "0:suppression.added",
        "0:suppression.added",
        "0:suppression.removed",
      ]);
    });

    it("stores an address once when several writers add it at once", async () => {
      const writers = Array.from({ length: 6 }, (_, i) => entry("race@example.com", { id: sortedId(6 + i) }));
      const results = await Promise.all(writers.map((w) => add([w])));
      const winners = new Set(results.map((r) => r[0]!.id));
      expect(winners.size).toBe(1);
      expect(await storage().suppressions.listSuppressions({}, { limit: 10 })).toHaveLength(1);
    });

    it("keeps why a bounce put an address there: reason, bounce type and the server's words", async () => {
      const why = entry("why@example.com", {
        origin: "bounce",
        sourceId: "0198aaaa-0000-7000-8000-000000000002",
        reason: "userunknown",
        bounceType: "Permanent",
        diagnostic: "550 5.1.1 <why@example.com>: Recipient address rejected: User unknown ✉",
      });
      expect(await add([why])).toEqual([why]);
      expect(await storage().suppressions.getSuppression("why@example.com")).toEqual(why);
      expect(await storage().suppressions.listSuppressions({}, { limit: 1 })).toEqual([why]);
    });

    it("counts soft bounces of one address within a window, each email once", async () => {
      const soft = (email: string, emailId: string, at: number) =>
        storage().suppressions.countSoftBounce({ id: sortedId(9), email, emailId, at }, T0);
      expect(await soft("soft@example.com", "e1", T0 - 1000)).toBe(0); // before the window
      expect(await soft("soft@example.com", "e2", T0)).toBe(1);
      expect(await soft("soft@example.com", "e2", T0 + 5)).toBe(1); // the same email again
      expect(await soft("other@example.com", "e3", T0 + 10)).toBe(1);
      expect(await soft("soft@example.com", "e4", T0 + 20)).toBe(2);
    });
  });

  describe("settings", () => {
    const storage = useStorage(harness);

    it("stores the first value of a name and answers it to every later or concurrent caller", async () => {
      const first = await Promise.all(
        ["a", "b", "c", "d"].map((value) => storage().settings.getOrCreateSetting("server_secret", value)),
      );
      expect(new Set(first).size).toBe(1);
      expect(await storage().settings.getOrCreateSetting("server_secret", "later")).toBe(first[0]);
      expect(await storage().settings.getOrCreateSetting("other", "x")).toBe("x");
    });
  });
}
