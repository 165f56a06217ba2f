import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";

describe("flags over node:http (smoke)", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => app.close());

  it("creates, evaluates, patches, lists and deletes a flag", async () => {
    const created = await app.call("POST", "/v1/flags", { key: "beta", rules: [{ type: "users", userIds: ["u1"] }] });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe("/v1/flags/beta");
    const { data } = (await created.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({
      key: "beta",
      description: "",
      enabled: false,
      rules: [{ type: "users", userIds: ["u1"] }],
    });

    const off = await app.call("POST", "/v1/flags/beta/evaluate", { userId: "u1" });
    expect(await off.json()).toEqual({ data: { enabled: false, reason: "disabled" } });

    const patched = await app.call("PATCH", "/v1/flags/beta", { enabled: true });
    expect(((await patched.json()) as { data: { enabled: boolean } }).data.enabled).toBe(true);

    const on = await app.call("POST", "/v1/flags/beta/evaluate", { userId: "u1" });
    expect(await on.json()).toEqual({ data: { enabled: true, reason: "rule_match", ruleIndex: 0 } });

    const list = await app.call("GET", "/v1/flags");
    expect(((await list.json()) as { data: { key: string }[] }).data.map((f) => f.key)).toEqual(["beta"]);

    expect((await app.call("DELETE", "/v1/flags/beta")).status).toBe(204);
    expect((await app.call("GET", "/v1/flags/beta")).status).toBe(404);
  });

  it("answers 401 without a key and 422 with a message naming the field", async () => {
    const anon = await fetch(`${app.url}/v1/flags`);
    expect(anon.status).toBe(401);
    expect(((await anon.json()) as { error: { code: string } }).error.code).toBe("missing_api_key");
    const bad = await app.call("POST", "/v1/flags", { key: "-bad", rules: [{ type: "percentage", percentage: 101 }] });
    expect(bad.status).toBe(422);
    const body = (await bad.json()) as { error: { message: string; details: { path: string }[] } };
    expect(body.error.message).toMatch(/^"key" must be 1 to 128 characters/);
    expect(body.error.details.map((d) => d.path)).toEqual(["key", "rules.0.percentage"]);
  });
});
