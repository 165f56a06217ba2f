import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError } from "./cases/client.js";
import { type Target, VARIANTS } from "../support/frameworks.js";

// GET /v1/flags/_access: the calling key's scopes, for clients that offer only what the key may do.

describe("GET /v1/flags/_access", () => {
  let t: Target;
  beforeAll(async () => {
    t = await VARIANTS.node.start();
  });
  afterAll(() => t.close());

  it("answers the scopes of the key that asks, and nothing else", async () => {
    const reader = await t.fp.keys.create({ name: "reader", scopes: ["flags:read", "flags:evaluate"] });
    const reply = await call(t, "GET", "/v1/flags/_access", { key: reader.key });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ data: { scopes: ["flags:read", "flags:evaluate"] } });
    expect(reply.text).not.toContain(reader.key);
    const full = await call(t, "GET", "/v1/flags/_access");
    expect(full.body).toEqual({ data: { scopes: ["full_access"] } });
  });

  it("is not shadowed by a flag, and refuses query parameters", async () => {
    const flag = await call(t, "GET", "/v1/flags/_access");
    expect(flag.body.data).not.toHaveProperty("key");
    expectError(await call(t, "GET", "/v1/flags/_access?scopes=1"), 422, "validation_error");
  });
});
