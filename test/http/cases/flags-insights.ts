import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { call, expectError, ISO_INSTANT } from "./client.js";

/** docs/api.md "Flag insights": GET /v1/flags/{key}/insights, and `stale` in the list. */
export function flagInsightCases(start: Start): void {
  describe("GET /v1/flags/{key}/insights", () => {
    let t: Target;
    beforeAll(async () => {
      t = await start();
    });
    afterAll(() => t.close());

    it("answers the hourly counts of evaluations made over HTTP, once flushed", async () => {
      expect((await call(t, "POST", "/v1/flags", { json: { key: "ins", enabled: true } })).status).toBe(201);
      for (let i = 0; i < 3; i++) await call(t, "POST", "/v1/flags/ins/evaluate", { json: { userId: `u${i}` } });
      await t.fp.flagInsights.flush();
      const reply = await call(t, "GET", "/v1/flags/ins/insights");
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body)).toEqual(["data"]);
      const data = reply.body.data;
      expect(Object.keys(data).sort()).toEqual([
        "flagKey",
        "flushIntervalMs",
        "from",
        "hours",
        "lastEvaluatedAt",
        "stale",
        "to",
      ]);
      expect(data.flagKey).toBe("ins");
      expect(data.stale).toBe(false);
      expect(data.lastEvaluatedAt).toMatch(ISO_INSTANT);
      expect(data.hours).toHaveLength(1);
      expect(data.hours[0]).toEqual({
        hour: expect.stringMatching(/T\d\d:00:00\.000Z$/),
        evaluations: 3,
        on: 3,
        off: 0,
      });

      const list = await call(t, "GET", "/v1/flags");
      expect(list.body.data.find((f: { key: string }) => f.key === "ins")).toMatchObject({ stale: false });
    });

    it("takes from and to, and refuses a reversed, too wide or malformed window with 422", async () => {
      await call(t, "POST", "/v1/flags", { json: { key: "ins-window" } });
      const empty = await call(t, "GET", "/v1/flags/ins-window/insights?from=2026-01-01&to=2026-01-02");
      expect(empty.status).toBe(200);
      expect(empty.body.data).toMatchObject({
        from: "2026-01-01T00:00:00.000Z",
        to: "2026-01-02T00:00:00.000Z",
        hours: [],
      });
      for (const query of [
        "from=2026-01-02&to=2026-01-01",
        "from=2025-01-01&to=2026-01-01",
        "from=yesterday",
        "window=1",
        "from=2026-01-01&from=2026-01-02",
      ]) {
        expectError(await call(t, "GET", `/v1/flags/ins-window/insights?${query}`), 422, "validation_error");
      }
    });

    it("answers 404 for a flag that does not exist", async () => {
      expectError(await call(t, "GET", "/v1/flags/ins-nope/insights"), 404, "not_found");
      expectError(await call(t, "GET", "/v1/flags/-bad/insights"), 404, "not_found");
    });
  });
}
