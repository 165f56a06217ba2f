import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";
import { type Accepted, type ErrorBody, json, storedCount, validEvent } from "./support.js";

/**
 * Every validation rule of docs/api.md's "Events" section (and docs/events.md's decisions), over real
 * HTTP: each broken rule gives 422 whose details name the field, on POST /v1/events and, at index
 * 3 of a batch, as `events.3.<field>` on POST /v1/events/batch, with nothing of the batch stored.
 */

const HOUR = 3_600_000;
const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

type Case = [name: string, change: (event: Record<string, unknown>) => void, path: string, message: RegExp];

const INVALID: Case[] = [
  ["event missing", (e) => delete e.event, "event", /is required/],
  ["event empty", (e) => (e.event = ""), "event", /must not be empty/],
  ["event of 201 characters", (e) => (e.event = "e".repeat(201)), "event", /at most 200 characters/],
  ["event not a string", (e) => (e.event = 42), "event", /must be a string/],
  ["event with a control character", (e) => (e.event = "sign\nup"), "event", /control characters/],
  ["event with an unpaired surrogate", (e) => (e.event = "sign\ud800up"), "event", /unpaired surrogates/],
  ["userId missing", (e) => delete e.userId, "userId", /is required/],
  ["userId empty", (e) => (e.userId = ""), "userId", /must not be empty/],
  ["userId of 201 characters", (e) => (e.userId = "u".repeat(201)), "userId", /at most 200 characters/],
  ["userId a number", (e) => (e.userId = 7), "userId", /must be a string/],
  ["userId null", (e) => (e.userId = null), "userId", /must be a string/],
  ["timestamp not a date", (e) => (e.timestamp = "yesterday"), "timestamp", /ISO 8601 date-time with a time zone/],
  ["timestamp without a time zone", (e) => (e.timestamp = "2026-01-31T10:00:00"), "timestamp", /with a time zone/],
  ["timestamp a bare date", (e) => (e.timestamp = "2026-01-31"), "timestamp", /with a time zone/],
  ["timestamp an impossible date", (e) => (e.timestamp = "2026-02-30T10:00:00Z"), "timestamp", /ISO 8601/],
  ["timestamp a number", (e) => (e.timestamp = 1767225600000), "timestamp", /ISO 8601/],
  ["timestamp more than 24 h ahead", (e) => (e.timestamp = isoIn(24 * HOUR + 60_000)), "timestamp", /24 hours/],
  ["timestamp before 1970", (e) => (e.timestamp = "1969-12-31T23:59:59Z"), "timestamp", /1970/],
  ["properties an array", (e) => (e.properties = [1, 2]), "properties", /must be an object/],
  ["properties a string", (e) => (e.properties = "{}"), "properties", /must be an object/],
  ["properties null", (e) => (e.properties = null), "properties", /must be an object/],
  ["properties over 32 KiB", (e) => (e.properties = { text: "x".repeat(32 * 1024) }), "properties", /at most 32 KiB/],
  [
    "properties over 32 KiB in UTF-8 bytes",
    (e) => (e.properties = { text: "é".repeat(16_380) }),
    "properties",
    /at most 32 KiB/,
  ],
  ["revenue a string", (e) => (e.properties = { revenue: "12.50" }), "properties.revenue", /finite number/],
  ["revenue null", (e) => (e.properties = { revenue: null }), "properties.revenue", /finite number/],
  [
    "currency lower-case",
    (e) => (e.properties = { revenue: 1, currency: "eur" }),
    "properties.currency",
    /3 upper-case letters/,
  ],
  [
    "currency of 4 letters",
    (e) => (e.properties = { currency: "EURO" }),
    "properties.currency",
    /3 upper-case letters/,
  ],
  ["currency a number", (e) => (e.properties = { currency: 978 }), "properties.currency", /3 upper-case letters/],
  [
    "experimentId a number",
    (e) => (e.properties = { experimentId: 12 }),
    "properties.experimentId",
    /must be a string/,
  ],
  ["variant a boolean", (e) => (e.properties = { variant: true }), "properties.variant", /must be a string/],
  ["an unknown field", (e) => (e.userID = "typo"), "userID", /not a known field/],
];

describe("POST /v1/events and /v1/events/batch: validation", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => app.close());

  it.each(INVALID)(
    "%s → 422 naming the field, alone and at index 3 of a batch",
    async (_name, change, path, message) => {
      const bad = validEvent(99);
      change(bad);
      const before = await storedCount(app);

      const single = await app.call("POST", "/v1/events", bad);
      expect(single.status).toBe(422);
      const singleBody = await json<ErrorBody>(single);
      expect(singleBody.error.code).toBe("validation_error");
      expect(singleBody.error.details).toContainEqual({ path, message: expect.stringMatching(message) });
      expect(singleBody.error.message).toContain(`"${path}"`);

      const events = [validEvent(0), validEvent(1), validEvent(2), bad, validEvent(4)];
      const batch = await app.call("POST", "/v1/events/batch", { events });
      expect(batch.status).toBe(422);
      const batchBody = await json<ErrorBody>(batch);
      expect(batchBody.error.details).toContainEqual({
        path: `events.3.${path}`,
        message: expect.stringMatching(message),
      });
      expect(batchBody.error.message).toContain(`"events.3.${path}"`);

      expect(await storedCount(app)).toBe(before); // all or nothing: the four valid events were not stored
    },
  );

  it("accepts each rule's boundary: 200 characters, 32 KiB exactly, 24 h ahead, 1970, reserved properties", async () => {
    const exact = JSON.stringify({ t: "" }).length; // {"t":""}
    const cases = [
      { event: "e".repeat(200), userId: "u".repeat(200) },
      { event: "big", userId: "u", properties: { t: "x".repeat(32 * 1024 - exact) } },
      { event: "soon", userId: "u", timestamp: isoIn(24 * HOUR - 60_000) },
      { event: "epoch", userId: "u", timestamp: "1970-01-01T00:00:00Z" },
      {
        event: "paid",
        userId: "u",
        properties: { revenue: -3.5, currency: "JPY", experimentId: "exp-1", variant: "", other: [null] },
      },
      { event: "😀 emoji", userId: "user ü 😀" },
    ];
    for (const body of cases) {
      const response = await app.call("POST", "/v1/events", body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(202);
    }
  });

  it("names every broken rule of every event of a batch, and stores none", async () => {
    const before = await storedCount(app);
    const events = [
      validEvent(0),
      { userId: "" },
      validEvent(2),
      { event: "x", userId: "y", properties: { currency: "usd" } },
    ];
    const response = await app.call("POST", "/v1/events/batch", { events });
    expect(response.status).toBe(422);
    const body = await json<ErrorBody>(response);
    expect(body.error.details?.map((d) => d.path)).toEqual([
      "events.1.event",
      "events.1.userId",
      "events.3.properties.currency",
    ]);
    expect(body.error.message).toMatch(/^"events.1.event" is required \(and 2 more problems\)$/);
    expect(await storedCount(app)).toBe(before);
  });

  it("refuses a batch body of the wrong shape", async () => {
    const cases: [unknown, string, RegExp][] = [
      [{}, "events", /is required/],
      [{ events: [] }, "events", /at least 1 item/],
      [{ events: Array.from({ length: 1001 }, (_, i) => validEvent(i)) }, "events", /at most 1000 items/],
      [{ events: validEvent(0) }, "events", /must be an array/],
      [{ events: [validEvent(0)], dryRun: true }, "dryRun", /not a known field/],
      [[validEvent(0)], "", /must be an object/],
    ];
    for (const [body, path, message] of cases) {
      const response = await app.call("POST", "/v1/events/batch", body);
      expect(response.status).toBe(422);
      expect((await json<ErrorBody>(response)).error.details).toContainEqual({
        path,
        message: expect.stringMatching(message),
      });
    }
  });

  it("refuses a body that is not a JSON object", async () => {
    for (const body of [[validEvent(0)], "signup", 7, null]) {
      const response = await app.call("POST", "/v1/events", JSON.stringify(body));
      expect(response.status).toBe(422);
      expect((await json<ErrorBody>(response)).error.details).toContainEqual({
        path: "",
        message: expect.stringMatching(/must be an object/),
      });
    }
    const empty = await app.call("POST", "/v1/events");
    expect(empty.status).toBe(422);
    expect((await json<ErrorBody>(empty)).error.message).toBe("body is required");
  });

  it("answers 400 for broken JSON and 415 for another content type", async () => {
    const broken = await app.call("POST", "/v1/events/batch", '{"events": [');
    expect(broken.status).toBe(400);
    expect((await json<ErrorBody>(broken)).error.code).toBe("invalid_json");
    const text = await app.call("POST", "/v1/events", "event=signup", { "content-type": "text/plain" });
    expect(text.status).toBe(415);
  });

  it("takes batch bodies up to 5 MiB and refuses larger ones with 413", async () => {
    const padding = "p".repeat(20_000);
    const big = { events: Array.from({ length: 150 }, (_, i) => ({ ...validEvent(i), properties: { padding } })) }; // ≈ 3 MiB
    const accepted = await app.call("POST", "/v1/events/batch", big);
    expect(accepted.status).toBe(202);
    expect((await json<{ data: Accepted[] }>(accepted)).data).toHaveLength(150);

    const before = await storedCount(app);
    const huge = { events: Array.from({ length: 280 }, (_, i) => ({ ...validEvent(i), properties: { padding } })) }; // ≈ 5.4 MiB
    const refused = await app.call("POST", "/v1/events/batch", huge);
    expect(refused.status).toBe(413);
    expect((await json<ErrorBody>(refused)).error.code).toBe("payload_too_large");
    expect(await storedCount(app)).toBe(before);

    const single = await app.call("POST", "/v1/events", {
      ...validEvent(0),
      properties: { padding: "p".repeat(1024 * 1024) },
    });
    expect(single.status).toBe(413); // the single-event route keeps the default 1 MiB
  });

  it("answers one event with exactly the text JSON.stringify({data}) writes, as JSON that is not cached", async () => {
    const response = await app.call("POST", "/v1/events", validEvent(0));
    expect(response.status).toBe(202);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const text = await response.text();
    const { data } = JSON.parse(text) as { data: Accepted };
    expect(Object.keys(data)).toEqual(["id", "status"]);
    expect(data.status).toBe("accepted");
    expect(text).toBe(JSON.stringify({ data: { id: data.id, status: "accepted" } }));
  });

  it("checks scopes: events:write posts, events:read reads, neither does the other", async () => {
    const writer = (await app.fp.keys.create({ scopes: ["events:write"] })).key;
    const reader = (await app.fp.keys.create({ scopes: ["events:read"] })).key;
    const headers = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
    const post = (key: string, path: string, body: unknown) =>
      fetch(app.url + path, { method: "POST", headers: headers(key), body: JSON.stringify(body) });
    expect((await post(writer, "/v1/events", validEvent(0))).status).toBe(202);
    expect((await post(writer, "/v1/events/batch", { events: [validEvent(0)] })).status).toBe(202);
    const forbidden = await fetch(`${app.url}/v1/events`, { headers: headers(writer) });
    expect(forbidden.status).toBe(403);
    expect((await json<ErrorBody>(forbidden)).error.code).toBe("restricted_api_key");
    expect((await fetch(`${app.url}/v1/events`, { headers: headers(reader) })).status).toBe(200);
    expect((await post(reader, "/v1/events", validEvent(0))).status).toBe(403);
    // Auth comes before validation: an unauthenticated client learns nothing about the body.
    const anonymous = await fetch(`${app.url}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(anonymous.status).toBe(401);
  });
});
