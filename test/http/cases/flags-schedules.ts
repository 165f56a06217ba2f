import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { call, detailPaths, expectError, ISO_INSTANT, UUID } from "./client.js";

/** docs/api.md "Flag schedules": POST/GET /v1/flags/{key}/schedules, DELETE …/schedules/{id}. */
export function flagScheduleCases(start: Start): void {
  describe("/v1/flags/{key}/schedules", () => {
    let t: Target;
    beforeAll(async () => {
      t = await start();
    });
    afterAll(() => t.close());

    const soon = (ms: number) => new Date(Date.now() + ms).toISOString();

    it("schedules a change, applies it once due, and records it in the history", async () => {
      const made = await t.fp.keys.create({ name: "release bot", scopes: ["flags:write", "flags:read"] });
      await t.fp.flags.create({ key: "sched", rules: [{ type: "percentage", percentage: 10 }] });
      const at = soon(300);
      const reply = await call(t, "POST", "/v1/flags/sched/schedules", {
        key: made.key,
        json: { at, changes: { enabled: true, rules: [{ type: "percentage", percentage: 40 }] } },
      });
      expect(reply.status, reply.text).toBe(201);
      const schedule = reply.body.data;
      expect(Object.keys(reply.body)).toEqual(["data"]);
      expect(schedule).toEqual({
        id: expect.stringMatching(UUID),
        flagKey: "sched",
        at,
        changes: { enabled: true, rules: [{ type: "percentage", percentage: 40 }] },
        status: "pending",
        createdAt: expect.stringMatching(ISO_INSTANT),
        createdBy: { type: "api_key", id: made.id, name: "release bot" },
      });
      expect(reply.headers.get("location")).toBe(`${t.prefix}/v1/flags/sched/schedules/${schedule.id}`);

      const deadline = Date.now() + 10_000;
      let listed = await call(t, "GET", "/v1/flags/sched/schedules");
      while (listed.body.data[0]?.status === "pending" && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        listed = await call(t, "GET", "/v1/flags/sched/schedules");
      }
      expect(listed.body.data).toEqual([
        { ...schedule, status: "applied", finishedAt: expect.stringMatching(ISO_INSTANT) },
      ]);
      expect(Date.parse(listed.body.data[0].finishedAt)).toBeGreaterThanOrEqual(Date.parse(at));
      expect((await call(t, "GET", "/v1/flags/sched")).body.data).toMatchObject({ enabled: true });
      const history = (await call(t, "GET", "/v1/flags/sched/history")).body.data;
      expect(history[0]).toMatchObject({
        action: "scheduled_change_applied",
        actor: { type: "schedule", id: schedule.id },
        changes: [
          { path: "enabled", before: false, after: true },
          { path: "rules.0.percentage", before: 10, after: 40 },
        ],
      });
    });

    it("refuses bad schedules with 422 naming the field, and an unknown flag with 404", async () => {
      await t.fp.flags.create({ key: "strict" });
      const post = (json: unknown) => call(t, "POST", "/v1/flags/strict/schedules", { json });
      const cases: [unknown, string][] = [
        [{ changes: { enabled: true } }, "at"],
        [{ at: "next week", changes: { enabled: true } }, "at"],
        [{ at: "2020-01-01T00:00:00Z", changes: { enabled: true } }, "at"],
        [{ at: soon(60_000) }, "changes"],
        [{ at: soon(60_000), changes: {} }, "changes"],
        [{ at: soon(60_000), changes: { enabled: "yes" } }, "changes.enabled"],
        [
          { at: soon(60_000), changes: { rules: [{ type: "percentage", percentage: 101 }] } },
          "changes.rules.0.percentage",
        ],
        [{ at: soon(60_000), changes: { key: "renamed" } }, "changes.key"],
        [{ at: soon(60_000), changes: { enabled: true }, note: "x" }, "note"],
      ];
      for (const [json, path] of cases) {
        const reply = await post(json);
        expectError(reply, 422, "validation_error");
        expect(detailPaths(reply), JSON.stringify(json)).toEqual([path]);
      }
      expectError(
        await call(t, "POST", "/v1/flags/absent/schedules", { json: { at: soon(1000), changes: { enabled: true } } }),
        404,
        "not_found",
      );
      expectError(await call(t, "GET", "/v1/flags/absent/schedules"), 404, "not_found");
      expectError(await call(t, "GET", "/v1/flags/strict/schedules?status=done"), 422, "validation_error");
      expectError(await call(t, "GET", "/v1/flags/strict/schedules?cursor=xyz"), 422, "validation_error");
    });

    it("lists by time in pages with Link, filters by status, and deletes a pending schedule", async () => {
      await t.fp.flags.create({ key: "listed" });
      const ids: string[] = [];
      for (const offset of [30, 10, 20]) {
        const reply = await call(t, "POST", "/v1/flags/listed/schedules", {
          json: { at: soon(offset * 60_000), changes: { enabled: offset !== 20 } },
        });
        ids.push(reply.body.data.id);
      }
      const first = await call(t, "GET", "/v1/flags/listed/schedules?limit=2");
      expect(first.body.data.map((s: { id: string }) => s.id)).toEqual([ids[1], ids[2]]);
      const next = first.headers
        .get("link")!
        .match(/^<([^>]+)>; rel="next"$/)![1]!
        .slice(t.prefix.length);
      const second = await call(t, "GET", next);
      expect(second.body.data.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
      expect(second.headers.get("link")).toBeNull();
      expect((await call(t, "GET", "/v1/flags/listed/schedules?status=applied")).body.data).toEqual([]);

      const removed = await call(t, "DELETE", `/v1/flags/listed/schedules/${ids[1]}`);
      expect(removed.status).toBe(204);
      expect(removed.text).toBe("");
      expectError(await call(t, "DELETE", `/v1/flags/listed/schedules/${ids[1]}`), 404, "not_found");
      expectError(await call(t, "DELETE", `/v1/flags/other/schedules/${ids[0]}`), 404, "not_found");
      expectError(await call(t, "DELETE", "/v1/flags/listed/schedules/not-a-uuid"), 404, "not_found");
      expect((await call(t, "GET", "/v1/flags/listed/schedules")).body.data).toHaveLength(2);
    });
  });
}
