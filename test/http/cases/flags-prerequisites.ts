import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { call, expectError } from "./client.js";

/** docs/api.md "Flags" and docs/flags.md "Prerequisites": written, refused and answered over HTTP. */
export function flagPrerequisiteCases(start: Start): void {
  describe("flag prerequisites over HTTP", () => {
    let t: Target;
    beforeAll(async () => {
      t = await start();
    });
    afterAll(() => t.close());

    it("stores them, answers prerequisite_failed while one is unmet, and rule answers once it is met", async () => {
      expect((await call(t, "POST", "/v1/flags", { json: { key: "pr-base" } })).status).toBe(201);
      const created = await call(t, "POST", "/v1/flags", {
        json: { key: "pr-top", enabled: true, prerequisites: [{ flagKey: "pr-base", enabled: true }] },
      });
      expect(created.status).toBe(201);
      expect(created.body.data.prerequisites).toEqual([{ flagKey: "pr-base", enabled: true }]);
      expect((await call(t, "GET", "/v1/flags/pr-base")).body.data.prerequisites).toEqual([]);

      const failed = await call(t, "POST", "/v1/flags/pr-top/evaluate", { json: { userId: "u1" } });
      expect(failed.body).toEqual({ data: { enabled: false, reason: "prerequisite_failed" } });
      expect((await call(t, "PATCH", "/v1/flags/pr-base", { json: { enabled: true } })).status).toBe(200);
      const met = await call(t, "POST", "/v1/flags/pr-top/evaluate", { json: { userId: "u1" } });
      expect(met.body).toEqual({ data: { enabled: true, reason: "no_rules" } });
    });

    it("refuses an unknown key, the flag itself, a repeated key and a cycle with 422, naming the field", async () => {
      await call(t, "POST", "/v1/flags", { json: { key: "pr-a" } });
      await call(t, "POST", "/v1/flags", {
        json: { key: "pr-b", prerequisites: [{ flagKey: "pr-a", enabled: true }] },
      });

      const unknown = await call(t, "POST", "/v1/flags", {
        json: { key: "pr-c", prerequisites: [{ flagKey: "pr-nope", enabled: true }] },
      });
      expectError(unknown, 422, "validation_error");
      expect(unknown.body.error.details).toEqual([
        { path: "prerequisites.0.flagKey", message: 'names no flag ("pr-nope")' },
      ]);
      expect((await call(t, "GET", "/v1/flags/pr-c")).status).toBe(404);

      const self = await call(t, "PATCH", "/v1/flags/pr-a", {
        json: { prerequisites: [{ flagKey: "pr-a", enabled: true }] },
      });
      expectError(self, 422, "validation_error");

      const repeated = await call(t, "PATCH", "/v1/flags/pr-b", {
        json: {
          prerequisites: [
            { flagKey: "pr-a", enabled: true },
            { flagKey: "pr-a", enabled: false },
          ],
        },
      });
      expectError(repeated, 422, "validation_error");
      expect(repeated.body.error.details[0].path).toBe("prerequisites.1.flagKey");

      const cycle = await call(t, "PATCH", "/v1/flags/pr-a", {
        json: { prerequisites: [{ flagKey: "pr-b", enabled: true }] },
      });
      expectError(cycle, 422, "validation_error");
      expect(cycle.body.error.message).toContain("pr-a → pr-b → pr-a");
      expect((await call(t, "GET", "/v1/flags/pr-a")).body.data.prerequisites).toEqual([]);

      for (const bad of [
        [{ flagKey: "pr-a" }],
        [{ flagKey: "pr-a", enabled: "yes" }],
        "pr-a",
        [{ flagKey: "_x", enabled: true }],
      ]) {
        expectError(
          await call(t, "PATCH", "/v1/flags/pr-b", { json: { prerequisites: bad } }),
          422,
          "validation_error",
        );
      }
    });

    it("refuses a chain deeper than 10 with 422", async () => {
      await call(t, "POST", "/v1/flags", { json: { key: "pr-d0" } });
      for (let i = 1; i <= 10; i++) {
        const made = await call(t, "POST", "/v1/flags", {
          json: { key: `pr-d${i}`, prerequisites: [{ flagKey: `pr-d${i - 1}`, enabled: true }] },
        });
        expect(made.status).toBe(201);
      }
      const deeper = await call(t, "POST", "/v1/flags", {
        json: { key: "pr-d11", prerequisites: [{ flagKey: "pr-d10", enabled: true }] },
      });
      expectError(deeper, 422, "validation_error");
      expect(deeper.body.error.message).toContain("at most 10");
    });

    it("refuses to delete a flag others depend on with 409 naming them", async () => {
      await call(t, "POST", "/v1/flags", { json: { key: "pr-needed" } });
      await call(t, "POST", "/v1/flags", {
        json: { key: "pr-x", prerequisites: [{ flagKey: "pr-needed", enabled: true }] },
      });
      await call(t, "POST", "/v1/flags", {
        json: { key: "pr-y", prerequisites: [{ flagKey: "pr-needed", enabled: false }] },
      });
      const refused = await call(t, "DELETE", "/v1/flags/pr-needed");
      expectError(refused, 409, "conflict");
      expect(refused.body.error.message).toContain('"pr-x", "pr-y"');
      expect((await call(t, "GET", "/v1/flags/pr-needed")).status).toBe(200);
      await call(t, "DELETE", "/v1/flags/pr-x");
      await call(t, "PATCH", "/v1/flags/pr-y", { json: { prerequisites: [] } });
      expect((await call(t, "DELETE", "/v1/flags/pr-needed")).status).toBe(204);
    });
  });
}
