import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { call, detailPaths, expectError, ISO_INSTANT, UUID } from "./client.js";

/** The `<…>` of a `Link: <…>; rel="next"` header, or undefined. */
function nextHref(link: string | null): string | undefined {
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, `malformed Link header: ${link}`).not.toBeNull();
  return match![1];
}

/** docs/api.md "Flags", GET /v1/flags: code-point order, limit, cursor, Link. */
export function flagListCases(start: Start): void {
  describe("GET /v1/flags", () => {
    let t: Target;
    // 0zero < Alpha < Zeta < a-b < a.b < a_b < alpha < beta in code-point order; 105 more "f…" keys.
    const named = ["beta", "Alpha", "alpha", "0zero", "Zeta", "a.b", "a-b", "a_b"];
    const numbered = Array.from({ length: 105 }, (_, i) => `f${String(i).padStart(3, "0")}`);
    const all = [...named, ...numbered].sort();

    beforeAll(async () => {
      t = await start();
    });
    afterAll(() => t.close());

    it("answers an empty list with no Link header", async () => {
      const reply = await call(t, "GET", "/v1/flags");
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ data: [] });
      expect(reply.headers.get("link")).toBeNull();
    });

    it("lists summaries in code-point order by key, 100 by default, with a Link to the next page", async () => {
      for (const key of [...named].reverse())
        await t.fp.flags.create({ key, description: `about ${key}`, rules: [{ type: "users", userIds: ["u"] }] });
      for (const key of numbered) await t.fp.flags.create({ key });
      const reply = await call(t, "GET", "/v1/flags");
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body)).toEqual(["data"]);
      expect(reply.body.data).toHaveLength(100);
      expect(reply.body.data.map((f: { key: string }) => f.key)).toEqual(all.slice(0, 100));
      const first = reply.body.data[0];
      expect(Object.keys(first).sort()).toEqual(["createdAt", "description", "enabled", "id", "key", "stale"]);
      expect(first).toMatchObject({ key: "0zero", description: "about 0zero", enabled: false, stale: false });
      expect(first.id).toMatch(UUID);
      expect(first.createdAt).toMatch(ISO_INSTANT);
      const href = nextHref(reply.headers.get("link"));
      expect(href).toMatch(new RegExp(`^${t.prefix}/v1/flags\\?cursor=[A-Za-z0-9_-]+$`));
    });

    it("takes limit up to 1000", async () => {
      const one = await call(t, "GET", "/v1/flags?limit=1");
      expect(one.body.data.map((f: { key: string }) => f.key)).toEqual([all[0]]);
      const max = await call(t, "GET", "/v1/flags?limit=1000");
      expect(max.body.data).toHaveLength(all.length);
      expect(max.headers.get("link")).toBeNull();
      const exact = await call(t, "GET", `/v1/flags?limit=${all.length}`);
      expect(exact.body.data).toHaveLength(all.length);
      expect(exact.headers.get("link")).toBeNull();
    });

    it("walks every page by following the Link headers to the end", async () => {
      const seen: string[] = [];
      let href: string | undefined = `${t.prefix}/v1/flags?limit=7`;
      let pages = 0;
      while (href !== undefined) {
        expect(href.startsWith(`${t.prefix}/v1/flags?`)).toBe(true); // path-absolute, with the mount prefix
        const reply = await call(t, "GET", href.slice(t.prefix.length));
        expect(reply.status).toBe(200);
        expect(reply.body.data.length).toBeLessThanOrEqual(7);
        seen.push(...reply.body.data.map((f: { key: string }) => f.key));
        href = nextHref(reply.headers.get("link"));
        if (href) expect(new URLSearchParams(href.split("?")[1]).get("limit")).toBe("7");
        pages += 1;
      }
      expect(seen).toEqual(all);
      expect(pages).toBe(Math.ceil(all.length / 7));
    });

    it("refuses a limit out of range or not an integer (422 naming limit)", async () => {
      for (const limit of ["0", "1001", "-1", "1.5", "abc", "", "1e9", "0x10", "1e309"]) {
        const reply = await call(t, "GET", `/v1/flags?limit=${encodeURIComponent(limit)}`);
        expectError(reply, 422, "validation_error");
        expect(detailPaths(reply), `limit=${limit}`).toEqual(["limit"]);
      }
    });

    it("refuses an unknown or repeated query parameter (422 naming it)", async () => {
      const unknown = await call(t, "GET", "/v1/flags?sort=key");
      expectError(unknown, 422, "validation_error");
      expect(detailPaths(unknown)).toEqual(["sort"]);
      const twice = await call(t, "GET", "/v1/flags?limit=1&limit=2");
      expectError(twice, 422, "validation_error");
      expect(detailPaths(twice)).toEqual(["limit"]);
    });

    it("refuses a cursor it did not issue (422 naming cursor)", async () => {
      for (const cursor of ["!!!", "not a cursor", "x".repeat(300), "YQ="]) {
        const reply = await call(t, "GET", `/v1/flags?cursor=${encodeURIComponent(cursor)}`);
        expectError(reply, 422, "validation_error");
        expect(detailPaths(reply), `cursor=${cursor}`).toEqual(["cursor"]);
      }
    });
  });
}
