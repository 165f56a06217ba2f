import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { fingerprint } from "../../src/idempotency.js";
import { TRACK_OPERATION } from "../../src/events/index.js";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { startApp, type TestApp } from "../support/servers.js";
import { type Accepted, type ErrorBody, json, storedCount, validEvent } from "./support.js";

const DAY = 86_400_000;

describe("Idempotency-Key on POST /v1/events and /v1/events/batch", () => {
  let app: TestApp;
  let keyId: string;
  beforeAll(async () => {
    app = await startApp();
    keyId = (await app.fp.keys.list())[0]!.id;
  });
  afterAll(async () => app.close());

  const post = (path: string, body: unknown, key: string, headers: Record<string, string> = {}) =>
    app.call("POST", path, body, { "idempotency-key": key, ...headers });

  it("answers a retried event with the first answer and stores it once", async () => {
    const before = await storedCount(app);
    const body = { event: "signup", userId: "retry-1" }; // no timestamp: the default must not make the retry differ
    const first = await post("/v1/events", body, "track-1");
    expect(first.status).toBe(202);
    const firstBody = await json<{ data: Accepted }>(first);
    const again = await post("/v1/events", { userId: "retry-1", event: "signup" }, "track-1"); // same JSON, other key order
    expect(again.status).toBe(202);
    expect(await json<{ data: Accepted }>(again)).toEqual(firstBody);
    expect(await storedCount(app)).toBe(before + 1);
  });

  it("answers a retried batch with the same ids and stores it once", async () => {
    const before = await storedCount(app);
    const body = { events: [validEvent(1), validEvent(2), validEvent(3)] };
    const first = await json<{ data: Accepted[] }>(await post("/v1/events/batch", body, "batch-1"));
    const second = await post("/v1/events/batch", body, "batch-1");
    expect(second.status).toBe(202);
    expect(await json<{ data: Accepted[] }>(second)).toEqual(first);
    expect(new Set(first.data.map((a) => a.id)).size).toBe(3);
    expect(await storedCount(app)).toBe(before + 3);
  });

  it("in process, takes a Date timestamp as its ISO text: the same moment replays, another is refused", async () => {
    const at = new Date(Date.now() - 60_000);
    const options = { idempotencyKey: "dates-1" };
    const first = await app.fp.events.trackBatch([{ event: "signup", userId: "d1", timestamp: at }], options);
    const replay = await app.fp.events.trackBatch(
      [{ event: "signup", userId: "d1", timestamp: at.toISOString() }],
      options,
    );
    expect(replay).toEqual(first);
    const other = new Date(at.getTime() + 1);
    await expect(
      app.fp.events.trackBatch([{ event: "signup", userId: "d1", timestamp: other }], options),
    ).rejects.toMatchObject({ code: "invalid_idempotent_request" });
  });

  it("refuses the key with another body (409 invalid_idempotent_request) and stores nothing", async () => {
    await post("/v1/events", validEvent(1), "mismatch-1");
    const before = await storedCount(app);
    const other = await post("/v1/events", validEvent(2), "mismatch-1");
    expect(other.status).toBe(409);
    expect((await json<ErrorBody>(other)).error.code).toBe("invalid_idempotent_request");
    const otherRoute = await post("/v1/events/batch", { events: [validEvent(1)] }, "mismatch-1");
    expect(otherRoute.status).toBe(409);
    expect((await json<ErrorBody>(otherRoute)).error.code).toBe("invalid_idempotent_request");
    expect(await storedCount(app)).toBe(before);
  });

  it("refuses a key still being processed (409 concurrent_idempotent_requests) and stores nothing", async () => {
    const body = validEvent(5);
    // Another request (another process, say) holds the key and has not finished.
    const now = Date.now();
    const held = await app.fp.storage.idempotency.begin({
      scope: keyId,
      key: "busy-1",
      fingerprint: fingerprint(TRACK_OPERATION, body),
      now: now,
      lockedUntil: now + 60_000,
      expiresAt: now + DAY,
    });
    expect(held.state).toBe("started");
    const before = await storedCount(app);
    const response = await post("/v1/events", body, "busy-1");
    expect(response.status).toBe(409);
    expect((await json<ErrorBody>(response)).error.code).toBe("concurrent_idempotent_requests");
    expect(await storedCount(app)).toBe(before);
  });

  it("keeps keys per API key", async () => {
    const other = (await app.fp.keys.create({ scopes: ["events:write"] })).key;
    const body = validEvent(7);
    const mine = await json<{ data: Accepted }>(await post("/v1/events", body, "shared-name"));
    const theirs = await post("/v1/events", body, "shared-name", { authorization: `Bearer ${other}` });
    expect(theirs.status).toBe(202);
    expect((await json<{ data: Accepted }>(theirs)).data.id).not.toBe(mine.data.id);
  });

  it("does not spend a key on a refused body", async () => {
    const bad = await post("/v1/events", { event: "x" }, "fix-and-retry");
    expect(bad.status).toBe(422);
    const good = await post("/v1/events", { event: "x", userId: "u" }, "fix-and-retry");
    expect(good.status).toBe(202);
  });

  it("refuses an Idempotency-Key longer than 256 characters", async () => {
    const response = await post("/v1/events", validEvent(1), "k".repeat(257));
    expect(response.status).toBe(422);
    expect((await json<ErrorBody>(response)).error.details).toEqual([
      { path: "Idempotency-Key", message: "must be 1 to 256 characters" },
    ]);
  });
});

// A real race: the first request holds its claim while PostgreSQL makes its insert wait for a lock.
describeIfBackend("postgres", "Idempotency-Key races on PostgreSQL", () => {
  let database: TestDatabase;
  let app: TestApp;
  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    app = await startApp({ storage: kyselyStorage(database.db) });
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it("lets one of two concurrent requests with one key store, and refuses the other with 409", async () => {
    const blocker = database.open();
    const body = { events: [validEvent(1), validEvent(2)] };
    let first: Promise<Response> | undefined;
    await blocker.transaction().execute(async (trx) => {
      await sql`lock table flagpost_events in exclusive mode`.execute(trx);
      first = app.call("POST", "/v1/events/batch", body, { "idempotency-key": "race-1" });
      // Wait until the first request has claimed the key (its insert now waits for the lock).
      for (let i = 0; i < 200; i++) {
        const rows = await database.db
          .selectFrom("flagpost_idempotency")
          .select("id")
          .where("idempotency_key", "=", "race-1")
          .execute();
        if (rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const second = await app.call("POST", "/v1/events/batch", body, { "idempotency-key": "race-1" });
      expect(second.status).toBe(409);
      expect((await json<ErrorBody>(second)).error.code).toBe("concurrent_idempotent_requests");
    });
    const winner = await first!;
    expect(winner.status).toBe(202);
    const ids = (await json<{ data: Accepted[] }>(winner)).data.map((a) => a.id);
    const replay = await app.call("POST", "/v1/events/batch", body, { "idempotency-key": "race-1" });
    expect((await json<{ data: Accepted[] }>(replay)).data.map((a) => a.id)).toEqual(ids);
    expect(await storedCount(app)).toBe(2);
  });
});
