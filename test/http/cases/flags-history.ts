import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { call, expectError, ISO_INSTANT, UUID } from "./client.js";

/** docs/api.md "Flag history": GET /v1/flags/{key}/history. */
export function flagHistoryCases(start: Start): void {
  describe("GET /v1/flags/{key}/history", () => {
    let t: Target;
    beforeAll(async () => {
      t = await start();
    });
    afterAll(() => t.close());

    it("lists create, update and delete newest first, with the API key as actor, after the flag is gone", async () => {
      const made = await t.fp.keys.create({ name: "release bot", scopes: ["flags:write", "flags:read"] });
      expect(
        (
          await call(t, "POST", "/v1/flags", {
            key: made.key,
            json: { key: "hist", rules: [{ type: "percentage", percentage: 10 }] },
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await call(t, "PATCH", "/v1/flags/hist", {
            key: made.key,
            json: { enabled: true, rules: [{ type: "percentage", percentage: 30 }] },
          })
        ).status,
      ).toBe(200);
      await t.fp.flags.update("hist", { description: "from code" });
      expect((await call(t, "DELETE", "/v1/flags/hist", { key: made.key })).status).toBe(204);

      const reply = await call(t, "GET", "/v1/flags/hist/history", { key: made.key });
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body)).toEqual(["data"]);
      const entries = reply.body.data as Record<string, any>[];
      expect(entries.map((e) => e.action)).toEqual(["deleted", "updated", "updated", "created"]);
      for (const e of entries) {
        expect(Object.keys(e).sort()).toEqual(["action", "actor", "at", "changes", "id"]);
        expect(e.id).toMatch(UUID);
        expect(e.at).toMatch(ISO_INSTANT);
      }
      const bot = { type: "api_key", id: made.id, name: "release bot" };
      expect(entries.map((e) => e.actor)).toEqual([bot, { type: "in_process" }, bot, bot]);
      expect(entries[1]!.changes).toEqual([{ path: "description", before: "", after: "from code" }]);
      expect(entries[2]!.changes).toEqual([
        { path: "enabled", before: false, after: true },
        { path: "rules.0.percentage", before: 10, after: 30 },
      ]);
    });

    it("pages with limit and a Link to the next (older) page", async () => {
      await t.fp.flags.create({ key: "paged" });
      for (let i = 0; i < 4; i++) await t.fp.flags.update("paged", { description: `v${i}` });
      const ids: string[] = [];
      let path: string | undefined = "/v1/flags/paged/history?limit=2";
      let pages = 0;
      while (path !== undefined && pages < 10) {
        const reply = await call(t, "GET", path);
        expect(reply.status).toBe(200);
        ids.push(...reply.body.data.map((e: { id: string }) => e.id));
        const link = reply.headers.get("link");
        path = link ? link.match(/^<([^>]+)>; rel="next"$/)![1]!.slice(t.prefix.length) : undefined;
        pages += 1;
      }
      expect(pages).toBe(3);
      expect(ids).toHaveLength(5);
      expect([...ids].sort().reverse()).toEqual(ids);
    });

    it("answers 404 for a key that never existed, 422 for a bad cursor or limit", async () => {
      expectError(await call(t, "GET", "/v1/flags/never-was/history"), 404, "not_found");
      await t.fp.flags.create({ key: "cursor-check" });
      expectError(await call(t, "GET", "/v1/flags/cursor-check/history?cursor=not-ours"), 422, "validation_error");
      expectError(await call(t, "GET", "/v1/flags/cursor-check/history?limit=0"), 422, "validation_error");
      expectError(await call(t, "GET", "/v1/flags/cursor-check/history?limit=1001"), 422, "validation_error");
      expectError(await call(t, "GET", "/v1/flags/cursor-check/history?order=asc"), 422, "validation_error");
    });
  });
}
