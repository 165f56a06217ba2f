import { describe, expect, it } from "vitest";
import type { ExperimentQuery, ExperimentTotals, VariantTotals } from "../../../src/ports/storage/experiments.js";
import type { NewEvent } from "../../../src/ports/storage/events.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";

const T0 = Date.UTC(2026, 4, 1, 12, 0, 0, 0);
let seq = 0;

function ev(event: string, userId: string, second: number, properties: Record<string, unknown> = {}): NewEvent {
  seq += 1;
  return {
    id: `01910000-0000-7000-8000-${seq.toString(16).padStart(12, "0")}`,
    event,
    userId,
    timestamp: T0 + second * 1000,
    receivedAt: T0,
    propertiesJson: JSON.stringify(properties),
  };
}
const expose = (userId: string, variant: unknown, second: number, experimentId: unknown = "exp") =>
  ev("$exposure", userId, second, { flagKey: "exp", experimentId, variant });

function sorted(totals: ExperimentTotals): ExperimentTotals {
  return {
    excludedUsers: totals.excludedUsers,
    variants: [...totals.variants].sort((a, b) => (a.variant < b.variant ? -1 : 1)),
  };
}

/** The definition of ExperimentRepository.experimentTotals, written as plainly as possible. */
function reference(events: NewEvent[], query: ExperimentQuery): ExperimentTotals {
  const inWindow = events.filter(
    (e) =>
      (query.from === undefined || e.timestamp >= query.from) && (query.to === undefined || e.timestamp < query.to),
  );
  const users = new Map<string, { variants: Set<string>; exposedAt: number }>();
  for (const e of inWindow) {
    const p = JSON.parse(e.propertiesJson) as Record<string, unknown>;
    if (p.experimentId !== query.experimentId || typeof p.variant !== "string") continue;
    const u = users.get(e.userId) ?? { variants: new Set<string>(), exposedAt: e.timestamp };
    u.variants.add(p.variant);
    if (e.timestamp < u.exposedAt) u.exposedAt = e.timestamp;
    users.set(e.userId, u);
  }
  const totals = new Map<string, VariantTotals>();
  let excludedUsers = 0;
  for (const [userId, u] of users) {
    if (u.variants.size > 1) {
      excludedUsers += 1;
      continue;
    }
    const conversions = inWindow.filter(
      (e) => e.userId === userId && e.event === query.metric && e.timestamp >= u.exposedAt,
    );
    const revenue = conversions.reduce((sum, e) => {
      const r = (JSON.parse(e.propertiesJson) as Record<string, unknown>).revenue;
      return typeof r === "number" ? sum + r : sum;
    }, 0);
    const variant = [...u.variants][0]!;
    const t = totals.get(variant) ?? { variant, users: 0, conversions: 0, revenue: 0, revenueSquares: 0 };
    t.users += 1;
    t.conversions += conversions.length > 0 ? 1 : 0;
    t.revenue += revenue;
    t.revenueSquares += revenue * revenue;
    totals.set(variant, t);
  }
  return sorted({ variants: [...totals.values()], excludedUsers });
}

function expectClose(actual: ExperimentTotals, expected: ExperimentTotals): void {
  const a = sorted(actual);
  expect(a.excludedUsers).toBe(expected.excludedUsers);
  expect(a.variants.map((v) => [v.variant, v.users, v.conversions])).toEqual(
    expected.variants.map((v) => [v.variant, v.users, v.conversions]),
  );
  a.variants.forEach((v, i) => {
    expect(v.revenue).toBeCloseTo(expected.variants[i]!.revenue, 6);
    expect(v.revenueSquares).toBeCloseTo(expected.variants[i]!.revenueSquares, 4);
  });
}

async function totals(storage: Storage, query: Partial<ExperimentQuery> = {}): Promise<ExperimentTotals> {
  return sorted(await storage.experiments.experimentTotals({ experimentId: "exp", metric: "purchase", ...query }));
}

export function experimentCases(harness: StorageHarness): void {
  describe("experiments", () => {
    const storage = useStorage(harness);

    it("sums users, conversions at or after exposure, and revenue per variant; excludes users seen in two variants", async () => {
      await storage().events.appendEvents([
        expose("a1", "control", 10),
        ev("purchase", "a1", 5, { revenue: 100 }), // before exposure: not counted
        ev("purchase", "a1", 10, { revenue: 2.5 }), // at exposure: counted
        ev("purchase", "a1", 20, { revenue: 4 }),
        ev("purchase", "a1", 21, { revenue: "7" }), // converts, adds no revenue
        expose("a2", "control", 11),
        expose("a2", "control", 3), // exposure is the earliest: second 3
        ev("purchase", "a2", 4),
        expose("b1", "treatment", 12),
        ev("Purchase", "b1", 13, { revenue: 50 }), // another event name
        ev("purchase ", "b1", 13, { revenue: 50 }),
        expose("b2", "treatment", 1),
        ev("purchase", "b2", 30, { revenue: 10, experimentId: "exp", variant: "treatment" }),
        expose("mixed", "control", 1),
        expose("mixed", "treatment", 2),
        ev("purchase", "mixed", 3, { revenue: 1 }),
        expose("other", "control", 1, "Exp"), // another experiment (case-sensitive)
        expose("other", "control", 1, 5), // not a string
        expose("nov", 7, 1), // variant not a string: no assignment
        expose("b1 ", "control", 1), // a user id with a trailing space is another user: converts in control
        ev("purchase", "b1 ", 2, { revenue: 1 }),
      ]);
      expect(await totals(storage())).toEqual({
        excludedUsers: 1,
        variants: [
          { variant: "control", users: 3, conversions: 3, revenue: 7.5, revenueSquares: 6.5 * 6.5 + 1 },
          { variant: "treatment", users: 2, conversions: 1, revenue: 10, revenueSquares: 100 },
        ],
      });
      expect(await totals(storage(), { experimentId: "Exp" })).toEqual({
        excludedUsers: 0,
        variants: [{ variant: "control", users: 1, conversions: 0, revenue: 0, revenueSquares: 0 }],
      });
      expect(await totals(storage(), { experimentId: "none" })).toEqual({ excludedUsers: 0, variants: [] });
    });

    it("keeps variant keys apart byte for byte", async () => {
      await storage().events.appendEvents([
        expose("u1", "A", 1),
        expose("u2", "a", 1),
        expose("u3", "a ", 1),
        expose("u4", "ü", 1),
      ]);
      expect((await totals(storage())).variants.map((v) => [v.variant, v.users])).toEqual([
        ["A", 1],
        ["a", 1],
        ["a ", 1],
        ["ü", 1],
      ]);
    });

    it("applies from (inclusive) and to (exclusive) to assignment and metric events alike", async () => {
      await storage().events.appendEvents([
        expose("early", "control", 0),
        ev("purchase", "early", 100, { revenue: 1 }),
        expose("inside", "control", 50),
        ev("purchase", "inside", 60, { revenue: 2 }),
        ev("purchase", "inside", 100, { revenue: 3 }),
        expose("late", "control", 100),
      ]);
      const window = { from: T0 + 10_000, to: T0 + 100_000 };
      expect(await totals(storage(), window)).toEqual({
        excludedUsers: 0,
        variants: [{ variant: "control", users: 1, conversions: 1, revenue: 2, revenueSquares: 4 }],
      });
    });

    it("agrees with the plain definition on a random data set", async () => {
      let state = 42;
      const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
      const events: NewEvent[] = [];
      for (let u = 0; u < 150; u++) {
        const userId = `user-${u}`;
        const exposures = 1 + Math.floor(random() * 2);
        const home = ["control", "b", "c"][u % 3]!;
        // Now and then a second exposure names another variant: that user is excluded.
        for (let i = 0; i < exposures; i++)
          events.push(expose(userId, i > 0 && random() < 0.1 ? "b" : home, Math.floor(random() * 100)));
        const purchases = Math.floor(random() * 3);
        for (let i = 0; i < purchases; i++)
          events.push(
            ev(
              "purchase",
              userId,
              Math.floor(random() * 120),
              random() < 0.8 ? { revenue: Math.round(random() * 10_000) / 100 } : {},
            ),
          );
        if (random() < 0.3) events.push(ev("page_view", userId, Math.floor(random() * 120)));
      }
      await storage().events.appendEvents(events);
      const query = { experimentId: "exp", metric: "purchase" };
      expectClose(await totals(storage()), reference(events, query));
      const window = { ...query, from: T0 + 20_000, to: T0 + 90_000 };
      expectClose(await totals(storage(), window), reference(events, window));
    });
  });
}
