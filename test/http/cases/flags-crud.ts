import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { call, detailPaths, expectError, ISO_INSTANT, sleep, UUID } from "./client.js";

/** One attribute rule per operator, each with a value of the kind the operator takes. */
export const EVERY_OPERATOR = [
  { operator: "equals", value: "pro" },
  { operator: "not_equals", value: 1 },
  { operator: "in", value: ["a", "b", 3, true] },
  { operator: "not_in", value: [1, 2] },
  { operator: "contains", value: "x" },
  { operator: "starts_with", value: "a" },
  { operator: "ends_with", value: "z" },
  { operator: "gt", value: 10 },
  { operator: "gte", value: "2024-01-01T00:00:00Z" },
  { operator: "lt", value: 5.5 },
  { operator: "lte", value: "2025-06-30T12:00:00.000+02:00" },
  { operator: "semver_eq", value: "1.2.3" },
  { operator: "semver_gt", value: "1.0.0" },
  { operator: "semver_lt", value: "2.0.0-beta.1" },
].map((r) => ({ type: "attribute", attribute: "plan", ...r }));

export const EVERY_RULE_TYPE = [
  { type: "users", userIds: ["u1", "u2"] },
  { type: "percentage", percentage: 0 },
  { type: "percentage", percentage: 25.5 },
  { type: "percentage", percentage: 100 },
  ...EVERY_OPERATOR,
];

/** docs/api.md "Flags": POST, GET one, PATCH, DELETE. */
export function flagCrudCases(start: Start): void {
  let t: Target;
  beforeAll(async () => {
    t = await start();
  });
  afterAll(() => t.close());

  describe("POST /v1/flags", () => {
    it('creates with defaults: 201, Location, description "", enabled false, rules []', async () => {
      const reply = await call(t, "POST", "/v1/flags", { json: { key: "new-checkout" } });
      expect(reply.status).toBe(201);
      expect(reply.headers.get("location")).toBe(`${t.prefix}/v1/flags/new-checkout`);
      expect(Object.keys(reply.body)).toEqual(["data"]);
      const flag = reply.body.data;
      expect(Object.keys(flag).sort()).toEqual([
        "createdAt",
        "description",
        "enabled",
        "id",
        "key",
        "prerequisites",
        "rules",
        "updatedAt",
        "variants",
      ]);
      expect(flag).toMatchObject({
        key: "new-checkout",
        description: "",
        enabled: false,
        rules: [],
        prerequisites: [],
      });
      expect(flag.id).toMatch(UUID);
      expect(flag.createdAt).toMatch(ISO_INSTANT);
      expect(flag.updatedAt).toBe(flag.createdAt);
    });

    it("accepts every rule type and every attribute operator, and stores them as sent", async () => {
      const input = { key: "all.rules_1-x", description: "every rule", enabled: true, rules: EVERY_RULE_TYPE };
      const created = await call(t, "POST", "/v1/flags", { json: input });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).toMatchObject(input);
      const read = await call(t, "GET", "/v1/flags/all.rules_1-x");
      expect(read.body.data).toEqual(created.body.data);
    });

    it("accepts the longest key (128 characters) and keys differing only by case", async () => {
      const long = `a${"b".repeat(127)}`;
      expect((await call(t, "POST", "/v1/flags", { json: { key: long } })).status).toBe(201);
      expect((await call(t, "POST", "/v1/flags", { json: { key: "Case" } })).status).toBe(201);
      expect((await call(t, "POST", "/v1/flags", { json: { key: "case" } })).status).toBe(201);
    });

    it("answers 409 conflict for a key that exists, and keeps the first flag", async () => {
      await call(t, "POST", "/v1/flags", { json: { key: "dup", description: "first" } });
      const again = await call(t, "POST", "/v1/flags", { json: { key: "dup", description: "second" } });
      expectError(again, 409, "conflict");
      expect((await call(t, "GET", "/v1/flags/dup")).body.data.description).toBe("first");
    });

    it("refuses a bad key with 422 naming key", async () => {
      for (const key of [
        "",
        "-lead",
        ".lead",
        "has space",
        "slash/inside",
        "ünicode",
        `a${"b".repeat(128)}`,
        42,
        null,
        ["a"],
      ]) {
        const reply = await call(t, "POST", "/v1/flags", { json: { key } });
        expectError(reply, 422, "validation_error");
        expect(detailPaths(reply), JSON.stringify(key)).toEqual(["key"]);
        expect(reply.body.error.message).toMatch(/^"key" /);
      }
      const missing = await call(t, "POST", "/v1/flags", { json: { description: "no key" } });
      expectError(missing, 422, "validation_error");
      expect(detailPaths(missing)).toEqual(["key"]);
    });

    it("refuses bad rules with 422 whose details name rules.N.field", async () => {
      const cases: [unknown[], string[]][] = [
        [[{ type: "percentage", percentage: 101 }], ["rules.0.percentage"]],
        [[{ type: "percentage", percentage: -1 }], ["rules.0.percentage"]],
        [[{ type: "percentage", percentage: 12.345 }], ["rules.0.percentage"]],
        [[{ type: "percentage", percentage: "50" }], ["rules.0.percentage"]],
        [[{ type: "users", userIds: [] }], ["rules.0.userIds"]],
        [[{ type: "users", userIds: [""] }], ["rules.0.userIds.0"]],
        [[{ type: "users", userIds: Array.from({ length: 10_001 }, (_, i) => `u${i}`) }], ["rules.0.userIds"]],
        [[{ type: "nope" }], ["rules.0.type"]],
        [[{ percentage: 5 }], ["rules.0.type"]],
        [
          [
            { type: "users", userIds: ["a"] },
            { type: "attribute", attribute: "plan", operator: "bogus", value: 1 },
          ],
          ["rules.1.operator"],
        ],
        [[{ type: "attribute", attribute: "plan", operator: "in", value: "pro" }], ["rules.0.value"]],
        [[{ type: "attribute", attribute: "plan", operator: "equals", value: ["pro"] }], ["rules.0.value"]],
        [[{ type: "attribute", attribute: "n", operator: "gt", value: "soon" }], ["rules.0.value"]],
        [[{ type: "attribute", attribute: "v", operator: "semver_gt", value: "1.2" }], ["rules.0.value"]],
        [[{ type: "attribute", attribute: "", operator: "equals", value: 1 }], ["rules.0.attribute"]],
        [[{ type: "users", userIds: ["a"], extra: true }], ["rules.0.extra"]],
        [["users"], ["rules.0"]],
      ];
      for (const [rules, paths] of cases) {
        const reply = await call(t, "POST", "/v1/flags", { json: { key: "bad-rule", rules } });
        expectError(reply, 422, "validation_error");
        expect(detailPaths(reply), JSON.stringify(rules).slice(0, 120)).toEqual(paths);
      }
      expect((await call(t, "GET", "/v1/flags/bad-rule")).status).toBe(404);
    });

    it("refuses wrong types, unknown fields and a body that is not an object (422)", async () => {
      const cases: [unknown, string[]][] = [
        [{ key: "x", enabled: "yes" }, ["enabled"]],
        [{ key: "x", description: 5 }, ["description"]],
        [{ key: "x", description: "d".repeat(1001) }, ["description"]],
        [{ key: "x", rules: {} }, ["rules"]],
        [{ key: "x", colour: "red" }, ["colour"]],
        [[], [""]],
        ["flag", [""]],
        [7, [""]],
        [null, [""]],
      ];
      for (const [json, paths] of cases) {
        const reply = await call(t, "POST", "/v1/flags", { raw: JSON.stringify(json) });
        expectError(reply, 422, "validation_error");
        expect(detailPaths(reply), JSON.stringify(json)).toEqual(paths);
      }
      const empty = await call(t, "POST", "/v1/flags", { headers: { "content-type": "application/json" } });
      expectError(empty, 422, "validation_error");
      expect((await call(t, "GET", "/v1/flags/x")).status).toBe(404);
    });
  });

  describe("GET /v1/flags/{key}", () => {
    it("answers the whole flag, rules and updatedAt included", async () => {
      const rules = [{ type: "percentage", percentage: 10 }];
      const created = await call(t, "POST", "/v1/flags", {
        json: { key: "read-me", description: "d", enabled: true, rules },
      });
      const reply = await call(t, "GET", "/v1/flags/read-me");
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ data: created.body.data });
      expect(reply.body.data).toMatchObject({ key: "read-me", description: "d", enabled: true, rules });
      expect(reply.body.data.updatedAt).toMatch(ISO_INSTANT);
    });

    it("answers 404 not_found for an unknown key, a key in the wrong case, and an invalid key", async () => {
      for (const key of ["missing", "READ-ME", "has%20space", "%C3%BC", "a%2Fb"]) {
        expectError(await call(t, "GET", `/v1/flags/${key}`), 404, "not_found");
      }
    });

    it("routes a trailing slash like the path without it", async () => {
      expect((await call(t, "GET", "/v1/flags/read-me/")).status).toBe(200);
      expect((await call(t, "GET", "/v1/flags/")).status).toBe(200);
    });
  });

  describe("PATCH /v1/flags/{key}", () => {
    it("merges: present fields replace, omitted fields stay, updatedAt moves, id and createdAt stay", async () => {
      const created = (
        await call(t, "POST", "/v1/flags", {
          json: { key: "merge", description: "d", rules: [{ type: "users", userIds: ["u1"] }] },
        })
      ).body.data;
      await sleep(5);
      const reply = await call(t, "PATCH", "/v1/flags/merge", { json: { enabled: true } });
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body)).toEqual(["data"]);
      const patched = reply.body.data;
      expect(patched).toMatchObject({
        id: created.id,
        key: "merge",
        description: "d",
        enabled: true,
        rules: created.rules,
        createdAt: created.createdAt,
      });
      expect(patched.updatedAt > created.updatedAt).toBe(true);
      expect((await call(t, "GET", "/v1/flags/merge")).body.data).toEqual(patched);
    });

    it("replaces the whole rule list when rules are sent", async () => {
      await call(t, "PATCH", "/v1/flags/merge", {
        json: {
          rules: [
            { type: "percentage", percentage: 50 },
            { type: "users", userIds: ["u9"] },
          ],
        },
      });
      const replaced = await call(t, "PATCH", "/v1/flags/merge", {
        json: { rules: [{ type: "percentage", percentage: 5 }], description: "" },
      });
      expect(replaced.body.data).toMatchObject({
        description: "",
        enabled: true,
        rules: [{ type: "percentage", percentage: 5 }],
      });
      const cleared = await call(t, "PATCH", "/v1/flags/merge", { json: { rules: [] } });
      expect(cleared.body.data.rules).toEqual([]);
    });

    it("accepts key and id echoed back unchanged, and application/merge-patch+json", async () => {
      const current = (await call(t, "GET", "/v1/flags/merge")).body.data;
      const echoed = await call(t, "PATCH", "/v1/flags/merge", {
        json: { key: current.key, id: current.id, description: "echo" },
      });
      expect(echoed.status).toBe(200);
      const merge = await call(t, "PATCH", "/v1/flags/merge", {
        raw: JSON.stringify({ description: "mp" }),
        headers: { "content-type": "application/merge-patch+json" },
      });
      expect(merge.status).toBe(200);
      expect(merge.body.data.description).toBe("mp");
    });

    it("refuses a change of key or id (422) and leaves the flag unchanged", async () => {
      const before = (await call(t, "GET", "/v1/flags/merge")).body.data;
      const key = await call(t, "PATCH", "/v1/flags/merge", { json: { key: "renamed" } });
      expectError(key, 422, "validation_error");
      expect(detailPaths(key)).toEqual(["key"]);
      const id = await call(t, "PATCH", "/v1/flags/merge", {
        json: { id: "01900000-0000-7000-8000-000000000000", enabled: false },
      });
      expectError(id, 422, "validation_error");
      expect(detailPaths(id)).toEqual(["id"]);
      expect((await call(t, "GET", "/v1/flags/merge")).body.data).toEqual(before);
      expect((await call(t, "GET", "/v1/flags/renamed")).status).toBe(404);
    });

    it("refuses bad fields (422 naming them) and changes nothing", async () => {
      const before = (await call(t, "GET", "/v1/flags/merge")).body.data;
      const cases: [unknown, string[]][] = [
        [{ enabled: "true" }, ["enabled"]],
        [{ rules: [{ type: "percentage", percentage: 100.5 }] }, ["rules.0.percentage"]],
        [{ description: "ok", rules: [{ type: "users", userIds: ["a"] }, { type: "x" }] }, ["rules.1.type"]],
        [{ createdAt: "2020-01-01T00:00:00.000Z" }, ["createdAt"]],
        [[], [""]],
        [null, [""]],
      ];
      for (const [json, paths] of cases) {
        const reply = await call(t, "PATCH", "/v1/flags/merge", { raw: JSON.stringify(json) });
        expectError(reply, 422, "validation_error");
        expect(detailPaths(reply), JSON.stringify(json)).toEqual(paths);
      }
      expect((await call(t, "GET", "/v1/flags/merge")).body.data).toEqual(before);
    });

    it("answers 404 for an unknown flag", async () => {
      expectError(await call(t, "PATCH", "/v1/flags/nobody", { json: { enabled: true } }), 404, "not_found");
    });
  });

  describe("DELETE /v1/flags/{key}", () => {
    it("answers 204 with no body, then the flag is gone (404 on GET, PATCH, DELETE, evaluate)", async () => {
      await call(t, "POST", "/v1/flags", { json: { key: "doomed" } });
      const reply = await call(t, "DELETE", "/v1/flags/doomed");
      expect(reply.status).toBe(204);
      expect(reply.text).toBe("");
      expect(reply.headers.get("content-type")).toBeNull();
      expectError(await call(t, "GET", "/v1/flags/doomed"), 404, "not_found");
      expectError(await call(t, "PATCH", "/v1/flags/doomed", { json: { enabled: true } }), 404, "not_found");
      expectError(await call(t, "DELETE", "/v1/flags/doomed"), 404, "not_found");
      expectError(await call(t, "POST", "/v1/flags/doomed/evaluate", { json: {} }), 404, "not_found");
      const list = await call(t, "GET", "/v1/flags?limit=1000");
      expect(list.body.data.map((f: { key: string }) => f.key)).not.toContain("doomed");
    });

    it("lets the key be created again afterwards", async () => {
      expect((await call(t, "POST", "/v1/flags", { json: { key: "doomed" } })).status).toBe(201);
    });
  });
}
