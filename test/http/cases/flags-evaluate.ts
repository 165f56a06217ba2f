import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { variantBuckets } from "../../flags/fixtures/index.js";
import { call, detailPaths, expectError } from "./client.js";

/** docs/api.md "Flags", POST /v1/flags/{key}/evaluate and the evaluation order. */
export function flagEvaluateCases(start: Start): void {
  describe("POST /v1/flags/{key}/evaluate", () => {
    let t: Target;
    beforeAll(async () => {
      t = await start();
      await t.fp.flags.create({ key: "off", rules: [{ type: "users", userIds: ["u1"] }] });
      await t.fp.flags.create({ key: "on", enabled: true });
      await t.fp.flags.create({
        key: "targeted",
        enabled: true,
        rules: [
          { type: "users", userIds: ["vip"] },
          { type: "attribute", attribute: "plan", operator: "equals", value: "pro" },
          { type: "percentage", percentage: 0 },
        ],
      });
    });
    afterAll(() => t.close());

    const evaluate = (key: string, json?: unknown) =>
      call(t, "POST", `/v1/flags/${key}/evaluate`, json === undefined ? {} : { json });

    it("answers {data: {enabled, reason}} in docs/api.md's order", async () => {
      const cases: [string, unknown, boolean, string][] = [
        ["off", { userId: "u1" }, false, "disabled"],
        ["on", { userId: "anyone" }, true, "no_rules"],
        ["targeted", { userId: "vip" }, true, "rule_match"],
        ["targeted", { userId: "someone", attributes: { plan: "pro" } }, true, "rule_match"],
        ["targeted", { userId: "someone", attributes: { plan: "free" } }, false, "no_rule_match"],
        ["targeted", { attributes: { plan: 1 } }, false, "no_rule_match"],
        ["targeted", {}, false, "no_rule_match"],
      ];
      for (const [key, context, enabled, reason] of cases) {
        const reply = await evaluate(key, context);
        expect(reply.status, reply.text).toBe(200);
        expect(Object.keys(reply.body)).toEqual(["data"]);
        expect(reply.body.data, `${key} ${JSON.stringify(context)}`).toMatchObject({ enabled, reason });
      }
    });

    it("adds the user's variant (the golden one) when the flag is on and has variants, and only then", async () => {
      const { variants, cases } = variantBuckets;
      const golden = cases.find((c) => c.flagKey === "new-checkout")!;
      const created = await call(t, "POST", "/v1/flags", { json: { key: "new-checkout", enabled: true, variants } });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.variants).toEqual(variants);
      expect((await evaluate("new-checkout", { userId: golden.userId })).body.data).toEqual({
        enabled: true,
        reason: "no_rules",
        variant: golden.variant,
      });
      expect((await evaluate("new-checkout", {})).body.data).toEqual({ enabled: true, reason: "no_rules" });
      expect((await evaluate("on", { userId: golden.userId })).body.data).toEqual({
        enabled: true,
        reason: "no_rules",
      });
      const patched = await call(t, "PATCH", "/v1/flags/new-checkout", { json: { enabled: false } });
      expect(patched.body.data.variants).toEqual(variants);
      expect((await evaluate("new-checkout", { userId: golden.userId })).body.data).toEqual({
        enabled: false,
        reason: "disabled",
      });
      const bad = await call(t, "PATCH", "/v1/flags/new-checkout", {
        json: {
          variants: [
            { key: "a", weight: 60 },
            { key: "b", weight: 60 },
          ],
        },
      });
      expectError(bad, 422, "validation_error");
      expect(detailPaths(bad)).toEqual(["variants"]);
    });

    it("treats a request without a body as an empty context", async () => {
      const reply = await evaluate("on");
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({ enabled: true, reason: "no_rules" });
    });

    it("answers 404 for an unknown flag", async () => {
      expectError(await evaluate("nobody", { userId: "u1" }), 404, "not_found");
    });

    it("refuses a bad context with 422 naming the field", async () => {
      const cases: [unknown, string[]][] = [
        [{ userId: 5 }, ["userId"]],
        [{ userId: "" }, ["userId"]],
        [{ userId: "u".repeat(201) }, ["userId"]],
        [{ attributes: [] }, ["attributes"]],
        [{ attributes: "plan=pro" }, ["attributes"]],
        [{ user: "u1" }, ["user"]],
        [["u1"], [""]],
        ["u1", [""]],
        [null, [""]],
      ];
      for (const [json, paths] of cases) {
        const reply = await call(t, "POST", "/v1/flags/on/evaluate", { raw: JSON.stringify(json) });
        expectError(reply, 422, "validation_error");
        expect(detailPaths(reply), JSON.stringify(json)).toEqual(paths);
      }
      const record = await call(t, "POST", "/v1/flags/on/evaluate", { json: { attributes: "plan=pro" } });
      expect((record.body as { error: { message: string } }).error.message).toBe(
        '"attributes" must be an object (got a string)',
      );
    });
  });
}
