import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { EventBufferOptions, UnstoredReason } from "../../src/events/index.js";
import { FlagpostError } from "../../src/errors.js";
import { jsonLogger } from "../../src/ports/logger.js";
import type { NewEvent } from "../../src/ports/storage/events.js";
import { eventIdText } from "../../adapters/kysely/row-codec.js";
import { createTestStorage, type TestDatabase } from "../support/databases.js";

/**
 * The buffer behind events.enqueue, on a real SQLite database. Storage outages are real too: the
 * events table is renamed away (every write fails with "no such table") and back.
 */

let database: TestDatabase;
let fp: Flagpost;
let logs: Record<string, unknown>[];
let unstored: { events: NewEvent[]; reason: UnstoredReason }[];

async function open(buffer: EventBufferOptions = {}): Promise<Flagpost> {
  const created = await createTestStorage("sqlite");
  database = created.database;
  logs = [];
  unstored = [];
  fp = createFlagpost({
    storage: created.storage,
    logger: jsonLogger((line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
    events: {
      buffer: {
        retryInitialMs: 10,
        retryMaxMs: 40,
        onUnstored: (events, reason) => unstored.push({ events, reason }),
        ...buffer,
      },
    },
  });
  await fp.ready();
  return fp;
}

const breakStorage = () => sql`alter table flagpost_events rename to flagpost_events_away`.execute(database.db);
const repairStorage = () => sql`alter table flagpost_events_away rename to flagpost_events`.execute(database.db);
const storedIds = async () =>
  (await database.db.selectFrom("flagpost_events").select("id").orderBy("id").execute()).map(
    (r: { id: string | Uint8Array }) => eventIdText(r.id),
  );
const event = (n: number) => ({ event: "hot-path", userId: `u${n}`, properties: { n } });

function queuedId(result: ReturnType<Flagpost["events"]["enqueue"]>): string {
  if (!result.queued) throw new Error(`not queued: ${result.reason}`);
  return result.id;
}

afterEach(async () => {
  await fp.close().catch(() => undefined);
  await database.drop();
});

describe("events.enqueue", () => {
  beforeEach(() => undefined);

  it("returns an id at once; flush() stores everything enqueued before it", async () => {
    await open({ flushIntervalMs: 60_000 });
    const ids = [1, 2, 3].map((n) => queuedId(fp.events.enqueue(event(n))));
    expect(await storedIds()).toEqual([]);
    await fp.events.flush();
    expect(await storedIds()).toEqual([...ids].sort());
    expect(fp.events.bufferStats()).toMatchObject({ waiting: 0, writing: 0, enqueued: 3, stored: 3, failedWrites: 0 });
  });

  it("writes a batch as soon as maxBatch events wait", async () => {
    await open({ maxBatch: 5, flushIntervalMs: 60_000 });
    for (let n = 0; n < 12; n++) fp.events.enqueue(event(n));
    await vi.waitFor(async () => expect(await storedIds()).toHaveLength(10), { timeout: 2000, interval: 10 });
    expect(fp.events.bufferStats().waiting).toBe(2); // below maxBatch: they wait for the interval
  });

  it("writes what waits after flushIntervalMs", async () => {
    await open({ maxBatch: 500, flushIntervalMs: 30 });
    const id = queuedId(fp.events.enqueue(event(1)));
    await vi.waitFor(async () => expect(await storedIds()).toEqual([id]), { timeout: 2000, interval: 10 });
  });

  it("refuses an invalid event without throwing, counts it and logs it", async () => {
    await open();
    const result = fp.events.enqueue({ event: "", userId: "u" });
    expect(result).toMatchObject({ queued: false, reason: "invalid" });
    expect(!result.queued && result.error.details).toEqual([{ path: "event", message: "must not be empty" }]);
    expect(fp.events.enqueue(null as never)).toMatchObject({ queued: false, reason: "invalid" });
    expect(fp.events.bufferStats().rejectedInvalid).toBe(2);
    expect(logs.some((l) => l.msg === "enqueue refused an invalid event")).toBe(true);
  });

  it("retries failed writes until storage is back, storing every event exactly once", async () => {
    await open({ maxBatch: 4, flushIntervalMs: 60_000 });
    await breakStorage();
    const ids = Array.from({ length: 10 }, (_, n) => queuedId(fp.events.enqueue(event(n))));
    const error = await fp.events.flush().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlagpostError);
    expect((error as FlagpostError).code).toBe("unavailable");
    await vi.waitFor(() => expect(fp.events.bufferStats().failedWrites).toBeGreaterThanOrEqual(3), {
      timeout: 2000,
      interval: 5,
    });
    expect(logs.filter((l) => l.msg === "storing buffered events failed; retrying").length).toBe(
      fp.events.bufferStats().failedWrites,
    );
    expect(fp.events.bufferStats()).toMatchObject({ waiting: 6, writing: 4, stored: 0 });

    await repairStorage();
    await fp.events.flush();
    expect(await storedIds()).toEqual([...ids].sort());
    expect(fp.events.bufferStats()).toMatchObject({
      waiting: 0,
      writing: 0,
      stored: 10,
      refusedByStorage: 0,
      unstoredAtClose: 0,
    });
    expect(unstored).toEqual([]);
  });

  it('when full under "reject", refuses new events and counts them; the queued ones are kept', async () => {
    await open({ maxBatch: 2, maxQueue: 3, flushIntervalMs: 60_000 });
    await breakStorage();
    const kept = [1, 2, 3].map((n) => queuedId(fp.events.enqueue(event(n))));
    expect(fp.events.enqueue(event(4))).toMatchObject({ queued: false, reason: "full" });
    expect(fp.events.enqueue(event(5))).toMatchObject({ queued: false, reason: "full" });
    expect(fp.events.bufferStats()).toMatchObject({ rejectedFull: 2, droppedOldest: 0 });
    expect(logs.filter((l) => l.msg === "the event queue is full; new events are refused")).toHaveLength(1);
    await repairStorage();
    await fp.events.flush();
    expect(await storedIds()).toEqual([...kept].sort());
  });

  it('when full under "drop-oldest", drops the oldest waiting event, counts it and hands it over', async () => {
    await open({ maxBatch: 2, maxQueue: 4, whenFull: "drop-oldest", flushIntervalMs: 60_000 });
    await breakStorage();
    const ids = [1, 2, 3, 4, 5].map((n) => queuedId(fp.events.enqueue(event(n))));
    await vi.waitFor(() => expect(fp.events.bufferStats().writing).toBe(2), { timeout: 2000, interval: 5 });
    // 1 and 2 are being written (retried), 3 and 4 wait: 5 arrived before the first write started, so 3 was dropped.
    expect(fp.events.bufferStats()).toMatchObject({ droppedOldest: 1, waiting: 2 });
    expect(unstored.map((u) => [u.reason, u.events.map((e) => e.id)])).toEqual([["dropped_oldest", [ids[2]]]]);
    await repairStorage();
    await fp.events.flush();
    expect(await storedIds()).toEqual([ids[0], ids[1], ids[3], ids[4]].sort());
  });

  it("takes a conflict on a retried batch as proof an earlier attempt stored it", async () => {
    await open({ maxBatch: 3, flushIntervalMs: 60_000 });
    await breakStorage();
    const ids = [1, 2, 3].map((n) => queuedId(fp.events.enqueue(event(n))));
    await vi.waitFor(() => expect(fp.events.bufferStats().failedWrites).toBeGreaterThanOrEqual(1), {
      timeout: 2000,
      interval: 5,
    });
    // As if the failed attempt had committed before its connection dropped: the rows are there.
    await repairStorage();
    const at = Date.now();
    await fp.storage.events.appendEvents(
      ids.map((id) => ({ id, event: "hot-path", userId: "x", timestamp: at, receivedAt: at, propertiesJson: "{}" })),
    );
    await fp.events.flush();
    expect(await storedIds()).toEqual([...ids].sort());
    expect(fp.events.bufferStats()).toMatchObject({ stored: 3, refusedByStorage: 0 });
    expect(logs.some((l) => l.msg === "a retried event batch had been stored by an earlier attempt")).toBe(true);
  });

  it("hands over a batch storage refuses for good (a conflict on the first attempt), logged and counted", async () => {
    await open({ maxBatch: 2, flushIntervalMs: 60_000 });
    const id = queuedId(fp.events.enqueue(event(1)));
    const at = Date.now();
    await fp.storage.events.appendEvents([
      { id, event: "someone-else", userId: "x", timestamp: at, receivedAt: at, propertiesJson: "{}" },
    ]);
    const other = queuedId(fp.events.enqueue(event(2))); // completes the batch: it is written now
    await fp.events.flush();
    expect(fp.events.bufferStats()).toMatchObject({ refusedByStorage: 2, stored: 0 });
    expect(unstored).toEqual([
      {
        reason: "refused_by_storage",
        events: [expect.objectContaining({ id }), expect.objectContaining({ id: other })],
      },
    ]);
    expect(logs.some((l) => l.msg === "storage refused a batch of buffered events" && l.level === "error")).toBe(true);
  });
});

describe("close() with buffered events", () => {
  it("stores what is queued before storage closes", async () => {
    await open({ flushIntervalMs: 60_000 });
    const ids = [1, 2, 3].map((n) => queuedId(fp.events.enqueue(event(n))));
    await fp.close();
    expect(await storedIds()).toEqual([...ids].sort());
    expect(fp.events.enqueue(event(4))).toMatchObject({ queued: false, reason: "closed" });
  });

  it("keeps retrying until closeTimeoutMs, then rejects, counts, logs and hands the events over", async () => {
    await open({ flushIntervalMs: 60_000, closeTimeoutMs: 300 });
    await breakStorage();
    const ids = [1, 2].map((n) => queuedId(fp.events.enqueue(event(n))));
    const started = performance.now();
    const error = await fp.close().catch((e: unknown) => e);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(error).toBeInstanceOf(FlagpostError);
    expect((error as FlagpostError).message).toBe("2 buffered events could not be stored before close; see the log");
    expect(fp.events.bufferStats()).toMatchObject({ unstoredAtClose: 2, waiting: 0, writing: 0 });
    expect(fp.events.bufferStats().failedWrites).toBeGreaterThan(1);
    expect(unstored).toEqual([{ reason: "close_timeout", events: ids.map((id) => expect.objectContaining({ id })) }]);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: "error", msg: "buffered events could not be stored before close", count: 2 }),
    );
  });

  it("stores what is queued if storage comes back during close()", async () => {
    await open({ flushIntervalMs: 60_000, closeTimeoutMs: 5000 });
    await breakStorage();
    const ids = [1, 2].map((n) => queuedId(fp.events.enqueue(event(n))));
    const closing = fp.close();
    await vi.waitFor(() => expect(fp.events.bufferStats().failedWrites).toBeGreaterThanOrEqual(2), {
      timeout: 2000,
      interval: 5,
    });
    await repairStorage();
    await closing;
    expect(await storedIds()).toEqual([...ids].sort());
  });
});
