import { describe, expect, it } from "vitest";
import { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import type { Scope } from "../../src/auth/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { EXPECTED, NOW, overviewScenario } from "../support/overview-scenario.js";
import { startApp } from "../support/servers.js";
import { describeEachStorage } from "../support/storage-backends.js";

interface Overview {
  at: string;
  outbox: { due: number; scheduled: number; oldestDueAt: string | null; oldestDueAgeSeconds: number } | null;
  emails: {
    from: string;
    to: string;
    hours: { hour: string; sent: number; bounced: number; complained: number }[];
    totals: unknown;
  };
  events: { from: string; to: string; minutes: { minute: string; events: number }[]; total: number };
  webhooks: {
    failing: { id: string; endpoint?: string; status: string; failingSince: string }[];
    failingMore: boolean;
  };
  storageErrors: { total: number; byRepository: Record<string, number> };
}

/**
 * GET /v1/overview (issue 29) on every storage, with data made through the API on a fake clock
 * (test/support/overview-scenario.ts): exact counts, zero-filled windows, the failing endpoint
 * with its URL only for full_access, the query refused, and the process's storage errors.
 */
describeEachStorage("GET /v1/overview", (storage: () => Storage) => {
  it(
    "answers the outbox, the hours, the minutes, the failing endpoint and the storage errors",
    { timeout: 60_000 },
    async () => {
      const scenario = await overviewScenario(storage());
      try {
        const { app } = scenario;
        const response = await app.call("GET", "/v1/overview");
        expect(response.status).toBe(200);
        const { data } = (await response.json()) as { data: Overview };
        expect(data.at).toBe(new Date(NOW).toISOString());
        expect(data.outbox).toEqual({
          ...EXPECTED.outbox,
          oldestDueAt: "2026-06-01T10:05:00.000Z",
        });
        expect([data.emails.from, data.emails.to]).toEqual(["2026-05-31T11:00:00.000Z", "2026-06-01T11:00:00.000Z"]);
        expect(data.emails.hours).toHaveLength(24);
        data.emails.hours.forEach((hour, i) => {
          const want = EXPECTED.hours[i as keyof typeof EXPECTED.hours];
          expect(hour, `hour ${i}`).toEqual(
            want ?? {
              hour: new Date(Date.parse(data.emails.from) + i * 3_600_000).toISOString(),
              sent: 0,
              bounced: 0,
              complained: 0,
            },
          );
        });
        expect(data.emails.totals).toEqual(EXPECTED.totals);
        expect([data.events.from, data.events.to]).toEqual(["2026-06-01T09:31:00.000Z", "2026-06-01T10:31:00.000Z"]);
        expect(data.events.minutes).toHaveLength(60);
        expect(data.events.minutes.map((m) => m.minute)).toEqual(
          Array.from({ length: 60 }, (_, i) => new Date(Date.parse(data.events.from) + i * 60_000).toISOString()),
        );
        expect(
          Object.fromEntries(data.events.minutes.flatMap((m, i) => (m.events > 0 ? [[String(i), m.events]] : []))),
        ).toEqual(Object.fromEntries(Object.entries(EXPECTED.minutes).map(([i, n]) => [i, n])));
        expect(data.events.total).toBe(EXPECTED.events);
        expect(data.webhooks).toEqual({
          failing: [
            {
              id: scenario.failing.id,
              endpoint: scenario.failing.endpoint,
              status: "enabled",
              failingSince: "2026-06-01T10:05:00.000Z",
            },
          ],
          failingMore: false,
        });
        expect(data.storageErrors).toEqual({ total: 0, byRepository: {} });

        // emails:read is enough; the URL of the endpoint is for keys that may read webhooks.
        const reader = await app.fp.keys.create({ scopes: ["emails:read"] });
        const asReader = await fetch(`${app.url}/v1/overview`, { headers: { authorization: `Bearer ${reader.key}` } });
        const read = ((await asReader.json()) as { data: Overview }).data;
        expect(read.webhooks.failing).toEqual([
          { id: scenario.failing.id, status: "enabled", failingSince: "2026-06-01T10:05:00.000Z" },
        ]);
        expect({ ...read, webhooks: undefined }).toEqual({ ...data, webhooks: undefined });
      } finally {
        await scenario.close();
      }
    },
  );
});

describe("GET /v1/overview: keys, query and storage errors", () => {
  it("answers 403 restricted_api_key to keys without emails:read, 401 without a key", async () => {
    const app = await startApp({ http: { rateLimit: false } });
    try {
      const cases: [Scope[], number][] = [
        [["emails:read"], 200],
        [["full_access"], 200],
        [["emails:send"], 403],
        [["flags:read", "events:read"], 403],
        [["metrics:read"], 403],
      ];
      for (const [scopes, status] of cases) {
        const { key } = await app.fp.keys.create({ scopes });
        const response = await fetch(`${app.url}/v1/overview`, { headers: { authorization: `Bearer ${key}` } });
        const body = (await response.json()) as { error?: { code: string; message: string } };
        expect(response.status, scopes.join(" ")).toBe(status);
        if (status === 403)
          expect(body.error).toMatchObject({
            code: "restricted_api_key",
            message: expect.stringContaining("emails:read"),
          });
      }
      expect((await fetch(`${app.url}/v1/overview`)).status).toBe(401);
    } finally {
      await app.close();
    }
  });

  it("refuses any query parameter by name with 422 and answers an empty storage with zeros", async () => {
    const app = await startApp({ http: { rateLimit: false } });
    try {
      const refused = await app.call("GET", "/v1/overview?hours=48");
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({
        error: { code: "validation_error", details: [{ path: "hours", message: "is not a parameter of this route" }] },
      });
      const { data } = (await (await app.call("GET", "/v1/overview")).json()) as { data: Overview };
      expect(data.outbox).toEqual({ due: 0, scheduled: 0, oldestDueAt: null, oldestDueAgeSeconds: 0 });
      expect(data.emails.totals).toEqual({ sent: 0, bounced: 0, complained: 0 });
      expect(data.emails.hours.every((h) => h.sent + h.bounced + h.complained === 0)).toBe(true);
      expect(data.events.total).toBe(0);
      expect(data.webhooks).toEqual({ failing: [], failingMore: false });
    } finally {
      await app.close();
    }
  });

  it("counts the storage calls of this process that failed, by repository", async () => {
    const storage = memoryStorage();
    const queryEvents = storage.events.queryEvents.bind(storage.events);
    let down = true;
    storage.events.queryEvents = (...args) =>
      down ? Promise.reject(new FlagpostError("unavailable", "the events store is down")) : queryEvents(...args);
    const app = await startApp({ storage, http: { rateLimit: false } });
    try {
      expect((await app.call("GET", "/v1/events")).status).toBe(503);
      expect((await app.call("GET", "/v1/events")).status).toBe(503);
      down = false;
      const { data } = (await (await app.call("GET", "/v1/overview")).json()) as { data: Overview };
      expect(data.storageErrors).toEqual({ total: 2, byRepository: { events: 2 } });
    } finally {
      await app.close();
    }
  });
});
