import { setTimeout as delay } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { idempotencyPurger } from "../../src/idempotency-purge.js";
import { fingerprint, IDEMPOTENCY_TTL_MS, runIdempotent } from "../../src/idempotency.js";
import { createFlagpost, type Flagpost, type FlagpostOptions } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { periodicQueue } from "../../src/jobs/periodic-queue.js";
import { createTestStorage, type TestDatabase } from "../support/databases.js";
import { type FakeClock, fakeClock } from "../support/fake-clock.js";

// Issue 13 item 7: expired Idempotency-Keys are purged on a schedule, driven by the clock.

const HOUR = 60 * 60 * 1000;

async function useKey(storage: Storage, clock: FakeClock, key: string): Promise<void> {
  await runIdempotent(storage, clock, { scope: "k", key, fingerprint: fingerprint("t", { key }) }, async () => key);
}

let database: TestDatabase | undefined;
let fp: Flagpost | undefined;
afterEach(async () => {
  await fp?.close();
  fp = undefined;
  await database?.drop();
  database = undefined;
});

/** A real SQLite storage, whose idempotency rows the test reads directly. */
async function sqlite(): Promise<{ storage: Storage; keys: () => Promise<string[]> }> {
  const created = await createTestStorage("sqlite");
  database = created.database;
  const db = created.database.db;
  const keys = async () =>
    (
      (await db.selectFrom("flagpost_idempotency").select("idempotency_key").orderBy("idempotency_key").execute()) as {
        idempotency_key: string;
      }[]
    ).map((r) => r.idempotency_key);
  return { storage: created.storage, keys };
}

/** A Flagpost on SQLite with these purge options, ready, holding one key ("old") used now. */
async function flagpostWithOldKey(
  idempotencyPurge: NonNullable<FlagpostOptions["idempotencyPurge"]>,
): Promise<{ clock: FakeClock; keys: () => Promise<string[]> }> {
  const { storage, keys } = await sqlite();
  const clock = fakeClock();
  fp = createFlagpost({ storage, clock, logger: silentLogger, idempotencyPurge });
  await fp.ready();
  await useKey(storage, clock, "old");
  return { clock, keys };
}

it("a periodic queue hands its job out once per interval of the clock, the first at once", async () => {
  const clock = fakeClock();
  const queue = periodicQueue(clock, "job", HOUR);
  const at = () => clock.now();
  expect(await queue.claim(at(), 1, 1_000, "w")).toEqual([{ id: "job" }]);
  expect(await queue.claim(at(), 1, 1_000, "w")).toEqual([]);
  clock.advance(HOUR - 1);
  expect(await queue.claim(at(), 1, 1_000, "w")).toEqual([]);
  clock.advance(1);
  expect(await queue.claim(at(), 1, 1_000, "w")).toEqual([{ id: "job" }]);
  expect(await queue.claim(at(), 0, 1_000, "w")).toEqual([]);
});

it("refuses an interval that is not above 0 ms as a validation error, like every other option", () => {
  for (const intervalMs of [0, -1, Number.NaN])
    expect(() =>
      idempotencyPurger({ storage: memoryStorage(), clock: fakeClock(), logger: silentLogger }, { intervalMs }),
    ).toThrow(
      expect.objectContaining({ code: "validation_error", message: "idempotencyPurge.intervalMs must be above 0" }),
    );
});

it("purges keys past their 24 h once per interval, and keeps the others", async () => {
  const { storage, keys } = await sqlite();
  const clock = fakeClock();
  const purger = idempotencyPurger({ storage, clock, logger: silentLogger }, { intervalMs: HOUR });
  await useKey(storage, clock, "old");
  expect(await purger.runOnce()).toBe(1); // the first purge runs at start: nothing has expired
  expect(await keys()).toEqual(["old"]);

  clock.advance(IDEMPOTENCY_TTL_MS - HOUR / 2);
  await useKey(storage, clock, "new");
  clock.advance(HOUR / 2 + 1); // "old" has expired, and the next purge is due (the last was 24 h ago)
  expect(await keys()).toEqual(["new", "old"]);
  expect(await purger.runOnce()).toBe(1);
  expect(await keys()).toEqual(["new"]);
  clock.advance(IDEMPOTENCY_TTL_MS - 1); // "new" expired, but the next purge is an hour after the last
  expect(await purger.runOnce()).toBe(1);
  expect(await keys()).toEqual([]);
  expect(await purger.runOnce()).toBe(0); // not due again within the hour
});

it("createFlagpost runs the purge on its own as the clock passes each interval", async () => {
  const { clock, keys } = await flagpostWithOldKey({ intervalMs: HOUR, pollIntervalMs: 5 });
  await delay(50); // polls that find no purge due: the first ran at start
  expect(await keys()).toEqual(["old"]);
  clock.advance(IDEMPOTENCY_TTL_MS + 1);
  const deadline = Date.now() + 5_000;
  while ((await keys()).length > 0 && Date.now() < deadline) await delay(10); // the worker polls every 5 ms
  expect(await keys()).toEqual([]);
});

it("does not start with autoStart: false", async () => {
  const { clock, keys } = await flagpostWithOldKey({ autoStart: false, pollIntervalMs: 5 });
  clock.advance(IDEMPOTENCY_TTL_MS + 1);
  await delay(100);
  expect(await keys()).toEqual(["old"]);
});
