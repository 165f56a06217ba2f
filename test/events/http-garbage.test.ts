import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";
import { type Accepted, json, storedCount } from "./support.js";

/**
 * Garbage in, never a 5xx out, and never a partial write: a refused request stores nothing, an
 * accepted one stores exactly what it answered.
 */

const now = Date.now();
const oddString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.constantFrom("", " ", "\u0000", "\ud800", "signup", "user-1", "e".repeat(201)),
);
const timestamp = fc.oneof(
  fc
    .date({ min: new Date(-1e13), max: new Date(now + 3 * 86_400_000), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    "2026-01-01",
    "2026-01-01T10:00:00",
    "2026-01-01T10:00:00+25:00",
    "1969-12-31T23:59:59.999Z",
    "+010000-01-01T00:00:00Z",
  ),
  oddString,
  fc.integer(),
  fc.constant(null),
);
const properties = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
  fc.record(
    {
      revenue: fc.oneof(fc.double(), fc.string(), fc.constant(null)),
      currency: fc.oneof(fc.constantFrom("EUR", "eur", "EURO"), oddString),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);
/** Near-valid events: the right field names with arbitrary values, sometimes an extra field. */
const eventish = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record(
      {
        event: fc.oneof(oddString, fc.jsonValue({ maxDepth: 1 })),
        userId: oddString,
        timestamp,
        properties,
        extra: fc.jsonValue({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record({ event: fc.constantFrom("signup", "view"), userId: fc.constantFrom("u1", "u2") }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

describe("event routes under arbitrary input", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ http: { rateLimit: false } });
  });
  afterAll(async () => app.close());

  it("POST /v1/events: 202 stores exactly one event, anything else stores nothing, never 5xx", async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(eventish, fc.jsonValue()), async (body) => {
        const before = await storedCount(app);
        const response = await app.call("POST", "/v1/events", JSON.stringify(body));
        expect([202, 400, 422]).toContain(response.status);
        statuses.add(response.status);
        const after = await storedCount(app);
        if (response.status === 202) {
          const { data } = await json<{ data: Accepted }>(response);
          expect(after).toBe(before + 1);
          const [stored] = await app.fp.storage.events
            .queryEvents({}, undefined, 1_000_000)
            .then((all) => all.filter((e) => e.id === data.id));
          expect(stored).toBeDefined();
        } else {
          await response.body?.cancel();
          expect(after).toBe(before);
        }
      }),
      { numRuns: 300 },
    );
    expect([...statuses].sort()).toEqual([202, 422]); // both outcomes were exercised
  });

  it("POST /v1/events/batch: all or nothing, never 5xx", async () => {
    const statuses = new Set<number>();
    const batchBody = fc.oneof(
      { weight: 4, arbitrary: fc.record({ events: fc.array(eventish, { minLength: 0, maxLength: 12 }) }) },
      {
        weight: 1,
        arbitrary: fc.record(
          { events: fc.jsonValue({ maxDepth: 2 }), other: fc.jsonValue({ maxDepth: 1 }) },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    );
    await fc.assert(
      fc.asyncProperty(batchBody, async (body) => {
        const before = await storedCount(app);
        const response = await app.call("POST", "/v1/events/batch", JSON.stringify(body));
        expect([202, 400, 422]).toContain(response.status);
        statuses.add(response.status);
        const after = await storedCount(app);
        if (response.status === 202) {
          const { data } = await json<{ data: Accepted[] }>(response);
          expect(data.length).toBe((body as { events: unknown[] }).events.length);
          expect(after).toBe(before + data.length);
        } else {
          await response.body?.cancel();
          expect(after).toBe(before);
        }
      }),
      { numRuns: 300 },
    );
    expect([...statuses].sort()).toEqual([202, 422]);
  });

  it("GET /v1/events: 200 or 422 for any query string, never 5xx", async () => {
    const statuses = new Set<number>();
    const names = fc.oneof(
      fc.constantFrom("userId", "event", "from", "to", "limit", "cursor"),
      fc.string({ maxLength: 6 }),
    );
    const values = fc.oneof(
      oddString,
      timestamp.map(String),
      fc.integer().map(String),
      fc.constantFrom("0", "1000", "1001", "-1", "1e3", "ZTEuMS4y"),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(names, values), { maxLength: 5 }), async (pairs) => {
        const query = new URLSearchParams(pairs).toString();
        const response = await app.call("GET", `/v1/events?${query}`);
        expect([200, 422]).toContain(response.status);
        statuses.add(response.status);
        const body = (await response.json()) as Record<string, unknown>;
        expect(Object.keys(body)).toEqual([response.status === 200 ? "data" : "error"]);
      }),
      { numRuns: 300 },
    );
    expect([...statuses].sort()).toEqual([200, 422]);
  });
});
