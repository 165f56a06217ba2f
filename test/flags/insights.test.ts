import { OpenFeature } from "@openfeature/server-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { FlagpostProvider } from "../../adapters/openfeature/index.js";
import { flagWrites } from "../../src/flags/store/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { startApp } from "../support/servers.js";

// Insights (docs/flags.md "Insights"): every evaluation path counted in memory, stored per hour
// and result at a flush, and read back with lastEvaluatedAt and staleness. The clock is the
// only fake: it decides the hour and the age of flags.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 2, 4, 5, 10);
const iso = (ms: number) => new Date(ms).toISOString();

let now = T0;
const clock = { now: () => now };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  now = T0;
});

/** Memory storage that counts the insight writes it receives, and can refuse the next ones. */
function watchedStorage(): Storage & { adds: number; refuse: number } {
  const storage = memoryStorage();
  const watched = Object.assign(storage, { adds: 0, refuse: 0 });
  const add = storage.flagInsights.add.bind(storage.flagInsights);
  storage.flagInsights.add = async (counts) => {
    if (watched.refuse > 0) {
      watched.refuse -= 1;
      throw new Error("storage is down");
    }
    watched.adds += 1;
    return add(counts);
  };
  return watched;
}

async function start(storage: Storage = memoryStorage()): Promise<Flagpost> {
  const fp = createFlagpost({ storage, clock, logger: silentLogger, insights: { flushIntervalMs: 3_600_000 } });
  await fp.ready();
  cleanups.push(() => fp.close());
  return fp;
}

describe("flag insights", () => {
  it("counts isEnabled, getVariant, flagClient.evaluate and the OpenFeature provider, per result and variant", async () => {
    const fp = await start();
    await fp.flags.create({ key: "plain", enabled: true, rules: [{ type: "users", userIds: ["in"] }] });
    await fp.flags.create({
      key: "split",
      enabled: true,
      variants: [
        { key: "blue", weight: 50 },
        { key: "green", weight: 50 },
      ],
    });
    for (let i = 0; i < 3; i++) fp.isEnabled("plain", { userId: "in" });
    for (let i = 0; i < 5; i++) fp.isEnabled("plain", { userId: "out" });
    fp.flagClient.evaluate("plain", { userId: "in" });
    const variants: Record<string, number> = {};
    for (let i = 0; i < 40; i++) {
      const variant = fp.getVariant("split", { userId: `u${i}` })!;
      variants[variant] = (variants[variant] ?? 0) + 1;
    }
    fp.isEnabled("split"); // no userId: on, without a variant
    fp.isEnabled("nope"); // unknown flags are not counted

    const domain = "insights-provider";
    await OpenFeature.setProviderAndWait(domain, new FlagpostProvider(fp));
    cleanups.push(() => OpenFeature.clearProviders());
    await OpenFeature.getClient(domain).getBooleanValue("plain", false, { targetingKey: "out" });

    await fp.flagInsights.flush();
    const plain = await fp.flagInsights.get("plain");
    expect(plain.hours).toEqual([{ hour: iso(Date.UTC(2026, 2, 4, 5)), evaluations: 10, on: 4, off: 6 }]);
    expect(plain.lastEvaluatedAt).toBe(iso(T0));
    const split = await fp.flagInsights.get("split");
    expect(split.hours).toEqual([{ hour: iso(Date.UTC(2026, 2, 4, 5)), evaluations: 41, on: 41, off: 0, variants }]);
    expect(Object.keys(variants).sort()).toEqual(["blue", "green"]);
  });

  it("counts the HTTP evaluate route, from the snapshot and from storage alike", async () => {
    const app = await startApp({ clock, insights: { flushIntervalMs: 3_600_000 } });
    cleanups.push(() => app.close());
    await app.fp.flags.create({ key: "http", enabled: true });
    for (let i = 0; i < 2; i++) expect((await app.call("POST", "/v1/flags/http/evaluate", {})).status).toBe(200);
    // A flag the snapshot does not hold (written by "another process") is read from storage, and counted.
    const storage = app.fp.storage;
    await flagWrites(storage).insert({
      id: "00000000-0000-7000-8000-000000000001",
      key: "elsewhere",
      description: "",
      enabled: false,
      rules: [],
      variants: [],
      prerequisites: [],
      createdAt: T0,
      updatedAt: T0,
    });
    expect(await (await app.call("POST", "/v1/flags/elsewhere/evaluate", {})).json()).toEqual({
      data: { enabled: false, reason: "disabled" },
    });
    await app.fp.flagInsights.flush();
    expect((await app.fp.flagInsights.get("http")).hours[0]).toMatchObject({ evaluations: 2, on: 2 });
    expect((await app.fp.flagInsights.get("elsewhere")).hours[0]).toMatchObject({ evaluations: 1, off: 1 });
  });

  it("counts a prerequisite evaluated on the way as an evaluation of that flag", async () => {
    const fp = await start();
    await fp.flags.create({ key: "gate", enabled: false });
    await fp.flags.create({ key: "feature", enabled: true, prerequisites: [{ flagKey: "gate", enabled: true }] });
    for (let i = 0; i < 4; i++) fp.isEnabled("feature", { userId: `u${i}` });
    await fp.flagInsights.flush();
    expect((await fp.flagInsights.get("gate")).hours[0]).toMatchObject({ evaluations: 4, off: 4 });
    expect((await fp.flagInsights.get("feature")).hours[0]).toMatchObject({ evaluations: 4, off: 4 });
  });

  it("never writes on the hot path: one add per flush, whatever the number of evaluations", async () => {
    const storage = watchedStorage();
    const fp = await start(storage);
    await fp.flags.create({ key: "hot", enabled: true });
    for (let i = 0; i < 10_000; i++) fp.isEnabled("hot", { userId: `u${i}` });
    expect(storage.adds).toBe(0);
    await fp.flagInsights.flush();
    expect(storage.adds).toBe(1);
    expect((await fp.flagInsights.get("hot")).hours[0]!.evaluations).toBe(10_000);
  });

  it("files counts under the hour of the flush, keeps counts of a flag changed in between, and flushes on close", async () => {
    const storage = watchedStorage();
    const fp = await start(storage);
    await fp.flags.create({ key: "f", enabled: true });
    fp.isEnabled("f");
    await fp.flags.update("f", { enabled: false }); // a new compiled flag: the old one's count must not be lost
    fp.isEnabled("f");
    await fp.flagInsights.flush();
    now = T0 + HOUR;
    fp.isEnabled("f");
    await fp.close();
    const rows = await storage.flagInsights.hourly("f", T0 - DAY, T0 + DAY);
    expect(rows.map((r) => [r.hour, r.enabled, r.count])).toEqual([
      [Date.UTC(2026, 2, 4, 5), false, 1],
      [Date.UTC(2026, 2, 4, 5), true, 1],
      [Date.UTC(2026, 2, 4, 6), false, 1],
    ]);
  });

  it("keeps the counts of a refused write and stores them with the next flush", async () => {
    const storage = watchedStorage();
    const fp = await start(storage);
    await fp.flags.create({ key: "f", enabled: true });
    fp.isEnabled("f");
    storage.refuse = 1;
    await fp.flagInsights.flush(); // refused: logged, kept
    fp.isEnabled("f");
    await fp.flagInsights.flush();
    expect((await fp.flagInsights.get("f")).hours[0]!.evaluations).toBe(2);
  });

  it("marks stale, in the list and in stale(), a flag not evaluated or answering one result for staleAfterDays", async () => {
    const fp = await start();
    now = T0 - 40 * DAY;
    await fp.flags.create({ key: "unused", enabled: true });
    await fp.flags.create({ key: "always-on", enabled: true });
    await fp.flags.create({ key: "mixed", enabled: true, rules: [{ type: "users", userIds: ["in"] }] });
    await fp.flags.create({ key: "old-only", enabled: true });
    fp.isEnabled("old-only"); // evaluated 40 days ago only
    await fp.flagInsights.flush();
    now = T0 - 10 * DAY;
    await fp.flags.create({ key: "young", enabled: true });
    fp.isEnabled("always-on", { userId: "a" });
    fp.isEnabled("mixed", { userId: "in" });
    fp.isEnabled("mixed", { userId: "out" });
    await fp.flagInsights.flush();
    now = T0;

    const page = await fp.flags.list();
    expect(Object.fromEntries(page.data.map((f) => [f.key, f.stale]))).toEqual({
      "always-on": true,
      mixed: false,
      "old-only": true,
      unused: true,
      young: false,
    });
    expect(await fp.flagInsights.stale()).toEqual([
      { key: "always-on", reason: "constant", result: "on", lastEvaluatedAt: iso(T0 - 10 * DAY) },
      { key: "old-only", reason: "not_evaluated", lastEvaluatedAt: iso(T0 - 40 * DAY) },
      { key: "unused", reason: "not_evaluated", lastEvaluatedAt: null },
    ]);
    expect(await fp.flagInsights.get("always-on")).toMatchObject({ stale: true, reason: "constant", result: "on" });
    expect(await fp.flagInsights.get("mixed")).toMatchObject({ stale: false });
  });

  it("honours staleAfterDays and refuses a bad one", async () => {
    now = T0 - 3 * DAY;
    const fp = createFlagpost({
      storage: memoryStorage(),
      clock,
      logger: silentLogger,
      insights: { staleAfterDays: 2 },
    });
    await fp.ready();
    cleanups.push(() => fp.close());
    await fp.flags.create({ key: "quiet" });
    now = T0;
    expect((await fp.flags.list()).data[0]!.stale).toBe(true);
    for (const staleAfterDays of [0, 1.5, 4000]) {
      expect(() =>
        createFlagpost({ storage: memoryStorage(), logger: silentLogger, insights: { staleAfterDays } }),
      ).toThrow(/staleAfterDays/);
    }
    expect(() => createFlagpost({ storage: memoryStorage(), insights: { flushIntervalMs: 0 } })).toThrow(
      /flushIntervalMs/,
    );
  });

  it("reads only hours since the flag was created, so a key used again starts afresh", async () => {
    const fp = await start();
    await fp.flags.create({ key: "again", enabled: true });
    fp.isEnabled("again");
    await fp.flagInsights.flush();
    await fp.flags.delete("again");
    now = T0 + 2 * HOUR;
    await fp.flags.create({ key: "again", enabled: false });
    const view = await fp.flagInsights.get("again");
    expect(view.hours).toEqual([]);
    expect(view.lastEvaluatedAt).toBeNull();
  });
});
