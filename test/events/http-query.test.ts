import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventRecord } from "../../src/ports/storage/events.js";
import { startApp, type TestApp } from "../support/servers.js";
import { type Accepted, type ErrorBody, json } from "./support.js";

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

function nextFrom(response: Response): string | undefined {
  const link = response.headers.get("link");
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, link).not.toBeNull();
  return match![1];
}

describe("GET /v1/events", () => {
  let app: TestApp;
  let ids: string[];
  beforeAll(async () => {
    app = await startApp({ clock: { now: () => T0 + 86_400_000 } });
    // 30 events: users a/b/c, events view/buy, one a minute; two share a timestamp.
    const events = Array.from({ length: 30 }, (_, n) => ({
      event: n % 3 === 0 ? "buy" : "view",
      userId: ["a", "b", "c"][n % 3],
      timestamp: iso(T0 + (n === 29 ? 28 : n) * 60_000),
      properties: { n },
    }));
    const response = await app.call("POST", "/v1/events/batch", { events });
    expect(response.status).toBe(202);
    ids = (await json<{ data: Accepted[] }>(response)).data.map((a) => a.id);
  });
  afterAll(async () => app.close());

  it("returns the documented fields, newest first, ties by id descending", async () => {
    const response = await app.call("GET", "/v1/events?limit=3");
    expect(response.status).toBe(200);
    const { data } = await json<{ data: EventRecord[] }>(response);
    expect(Object.keys(data[0]!)).toEqual(["id", "event", "userId", "timestamp", "properties", "receivedAt"]);
    expect(data.map((e) => e.properties.n)).toEqual([29, 28, 27]); // 28 and 29 share a timestamp; 29's id is larger
    expect(data[0]).toEqual({
      id: ids[29],
      event: "view",
      userId: "c",
      timestamp: iso(T0 + 28 * 60_000),
      properties: { n: 29 },
      receivedAt: iso(T0 + 86_400_000),
    });
  });

  it('walks every page through Link: rel="next", keeping the filters and the limit', async () => {
    let path: string | undefined = "/v1/events?userId=a&limit=3";
    const seen: number[] = [];
    let pages = 0;
    while (path) {
      const response = await app.call("GET", path);
      expect(response.status).toBe(200);
      seen.push(...(await json<{ data: EventRecord[] }>(response)).data.map((e) => e.properties.n as number));
      path = nextFrom(response);
      if (path) expect(path).toMatch(/^\/v1\/events\?userId=a&limit=3&cursor=[A-Za-z0-9_-]+$/);
      pages += 1;
    }
    expect(seen).toEqual([27, 24, 21, 18, 15, 12, 9, 6, 3, 0]);
    expect(pages).toBe(4);
  });

  it("has no Link header on the last page", async () => {
    const response = await app.call("GET", "/v1/events?limit=30");
    expect((await json<{ data: EventRecord[] }>(response)).data).toHaveLength(30);
    expect(response.headers.get("link")).toBeNull();
  });

  it("filters by event and a half-open window; bare dates are midnight UTC", async () => {
    const from = encodeURIComponent(iso(T0 + 3 * 60_000));
    const to = encodeURIComponent("2026-01-10T13:09:00+01:00"); // = T0 + 9 min
    const response = await app.call("GET", `/v1/events?event=buy&from=${from}&to=${to}`);
    expect((await json<{ data: EventRecord[] }>(response)).data.map((e) => e.properties.n)).toEqual([6, 3]);
    const day = await app.call("GET", "/v1/events?from=2026-01-10&to=2026-01-11&limit=1000");
    expect((await json<{ data: EventRecord[] }>(day)).data).toHaveLength(30);
    const before = await app.call("GET", "/v1/events?to=2026-01-10");
    expect((await json<{ data: EventRecord[] }>(before)).data).toEqual([]);
  });

  it("refuses bad dates, an empty window, limits out of range and unknown parameters with 422", async () => {
    const cases: [string, string, RegExp][] = [
      ["from=yesterday", "from", /ISO 8601/],
      ["to=2026-13-01", "to", /ISO 8601/],
      ["from=2026-01-10T10:00:00", "from", /ISO 8601/],
      ["from=2026-01-11&to=2026-01-10", "from", /before "to"/],
      ["from=2026-01-10&to=2026-01-10", "from", /before "to"/],
      ["limit=0", "limit", /integer from 1 to 1000/],
      ["limit=1001", "limit", /integer from 1 to 1000/],
      ["limit=2.5", "limit", /integer from 1 to 1000/],
      ["limit=ten", "limit", /integer from 1 to 1000/],
      ["limit=0x10", "limit", /integer from 1 to 1000/],
      ["limit=1e309", "limit", /integer from 1 to 1000/],
      ["userId=", "userId", /must not be empty/],
      ["event=" + "e".repeat(201), "event", /at most 200/],
      ["user=a", "user", /not a known field/],
      ["userId=a&userId=b", "userId", /more than once/],
      ["cursor=bm90LWEtY3Vyc29y", "cursor", /not a cursor this API returned/],
    ];
    for (const [query, path, message] of cases) {
      const response = await app.call("GET", `/v1/events?${query}`);
      expect(response.status, query).toBe(422);
      const body = await json<ErrorBody>(response);
      expect(body.error.code).toBe("validation_error");
      expect(body.error.details, query).toContainEqual({ path, message: expect.stringMatching(message) });
    }
  });

  it("refuses a cursor reused with other filters (422), and accepts it with another limit", async () => {
    const first = await app.call("GET", "/v1/events?event=view&limit=2");
    const cursor = new URL(nextFrom(first)!, app.url).searchParams.get("cursor")!;
    for (const other of ["event=buy", "event=view&userId=b", "", "event=view&from=2026-01-10"]) {
      const response = await app.call("GET", `/v1/events?${other}&cursor=${cursor}`);
      expect(response.status, other).toBe(422);
      expect((await json<ErrorBody>(response)).error.details).toEqual([
        { path: "cursor", message: expect.stringMatching(/other filters/) },
      ]);
    }
    const sameFilters = await app.call("GET", `/v1/events?limit=5&event=view&cursor=${cursor}`);
    expect(sameFilters.status).toBe(200);
    expect((await json<{ data: EventRecord[] }>(sameFilters)).data).toHaveLength(5);
  });

  it("keeps a cursor's position while events arrive: newer ones stay behind it, older ones show up in place", async () => {
    const first = await app.call("GET", "/v1/events?event=view&limit=4");
    const firstIds = (await json<{ data: EventRecord[] }>(first)).data.map((e) => e.id);
    const next = nextFrom(first)!;
    const before = (await json<{ data: EventRecord[] }>(await app.call("GET", next))).data.map((e) => e.properties.n);
    expect(before).toEqual([23, 22, 20, 19]);
    await app.call("POST", "/v1/events/batch", {
      events: [
        { event: "view", userId: "z", timestamp: iso(T0 + 40 * 60_000), properties: { n: "newer" } },
        { event: "view", userId: "z", timestamp: iso(T0 + 21.5 * 60_000), properties: { n: "older" } },
      ],
    });
    const after = (await json<{ data: EventRecord[] }>(await app.call("GET", next))).data;
    expect(after.map((e) => e.properties.n)).toEqual([23, 22, "older", 20]);
    expect(after.some((e) => firstIds.includes(e.id))).toBe(false);
  });
});
