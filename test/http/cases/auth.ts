import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES, type Scope } from "../../../src/auth/index.js";
import type { Start, Target } from "../../support/frameworks.js";
import { call, type CallOptions, expectError, expectResendError } from "./client.js";

interface RouteCase {
  name: string;
  scope: Scope;
  method: string;
  path: (key: string) => string;
  options?: CallOptions;
  /** Status when the key holds the scope. */
  ok: number;
}

const FLAG_ROUTES: RouteCase[] = [
  { name: "GET /v1/flags", scope: "flags:read", method: "GET", path: () => "/v1/flags", ok: 200 },
  { name: "POST /v1/flags", scope: "flags:write", method: "POST", path: () => "/v1/flags", options: {}, ok: 201 },
  { name: "GET /v1/flags/{key}", scope: "flags:read", method: "GET", path: (k) => `/v1/flags/${k}`, ok: 200 },
  {
    name: "PATCH /v1/flags/{key}",
    scope: "flags:write",
    method: "PATCH",
    path: (k) => `/v1/flags/${k}`,
    options: { json: { enabled: true } },
    ok: 200,
  },
  { name: "DELETE /v1/flags/{key}", scope: "flags:write", method: "DELETE", path: (k) => `/v1/flags/${k}`, ok: 204 },
  {
    name: "GET /v1/flags/{key}/history",
    scope: "flags:read",
    method: "GET",
    path: (k) => `/v1/flags/${k}/history`,
    ok: 200,
  },
  {
    name: "POST /v1/flags/{key}/evaluate",
    scope: "flags:evaluate",
    method: "POST",
    path: (k) => `/v1/flags/${k}/evaluate`,
    options: { json: { userId: "u1" } },
    ok: 200,
  },
];

/** docs/api.md "Authentication and scopes", and "the auth check runs before body validation". */
export function authCases(start: Start): void {
  describe("authentication and scopes", () => {
    let t: Target;
    let flagNumber = 0;
    /** A fresh flag per check, so DELETE and PATCH always find one. */
    const freshFlag = async () => {
      const key = `auth-${++flagNumber}`;
      await t.fp.flags.create({ key });
      return key;
    };
    const optionsFor = (route: RouteCase, key: string, apiKey: string | null): CallOptions => ({
      ...route.options,
      ...(route.method === "POST" && route.path(key) === "/v1/flags" ? { json: { key: `${key}-new` } } : {}),
      key: apiKey,
    });

    beforeAll(async () => {
      t = await start();
    });
    afterAll(() => t.close());

    it("answers 401 missing_api_key without an Authorization header, on every flag route", async () => {
      for (const route of FLAG_ROUTES) {
        const key = await freshFlag();
        expectError(await call(t, route.method, route.path(key), optionsFor(route, key, null)), 401, "missing_api_key");
      }
      // The flag DELETE would have removed is still there: nothing ran.
      expect((await call(t, "GET", `/v1/flags/auth-${flagNumber - 1}`)).status).toBe(200);
    });

    it("answers 401 when the header is not a Bearer token", async () => {
      for (const authorization of [
        `Basic ${Buffer.from(`u:${t.key}`).toString("base64")}`,
        t.key,
        "Bearer",
        "Bearer ",
        "Token abc",
        `Bearer${t.key}`,
      ]) {
        const reply = await call(t, "GET", "/v1/flags", { key: null, headers: { authorization } });
        expectError(reply, 401, "missing_api_key");
      }
    });

    it("accepts the scheme in any case (RFC 9110)", async () => {
      expect(
        (await call(t, "GET", "/v1/flags", { key: null, headers: { authorization: `bearer ${t.key}` } })).status,
      ).toBe(200);
    });

    it("answers 403 invalid_api_key for an unknown key and for a revoked one", async () => {
      expectError(
        await call(t, "GET", "/v1/flags", { key: "fp_unknown-key-0000000000000000000000" }),
        403,
        "invalid_api_key",
      );
      expectError(await call(t, "GET", "/v1/flags", { key: "x".repeat(600) }), 403, "invalid_api_key");
      const made = await t.fp.keys.create({ scopes: ["full_access"] });
      expect((await call(t, "GET", "/v1/flags", { key: made.key })).status).toBe(200);
      await t.fp.keys.revoke(made.id);
      expectError(await call(t, "GET", "/v1/flags", { key: made.key }), 403, "invalid_api_key");
    });

    for (const route of FLAG_ROUTES) {
      it(`${route.name}: 403 restricted_api_key without "${route.scope}", ${route.ok} with only it`, async () => {
        const others = SCOPES.filter((s) => s !== route.scope && s !== "full_access");
        const without = await t.fp.keys.create({ scopes: others });
        const only = await t.fp.keys.create({ scopes: [route.scope] });
        const key = await freshFlag();
        const denied = await call(t, route.method, route.path(key), optionsFor(route, key, without.key));
        expectError(denied, 403, "restricted_api_key");
        expect(denied.body.error.message).toContain(route.scope);
        const allowed = await call(t, route.method, route.path(key), optionsFor(route, key, only.key));
        expect(allowed.status, allowed.text).toBe(route.ok);
      });
    }

    it("checks the key before anything else: existence, JSON, media type, size", async () => {
      const anonymous = { key: null } as const;
      expectError(await call(t, "GET", "/v1/flags/does-not-exist", anonymous), 401, "missing_api_key");
      expectError(await call(t, "DELETE", "/v1/flags/does-not-exist", anonymous), 401, "missing_api_key");
      expectError(await call(t, "GET", "/v1/nothing-here", anonymous), 401, "missing_api_key");
      expectError(await call(t, "PUT", "/v1/flags", anonymous), 401, "missing_api_key");
      expectError(await call(t, "POST", "/v1/flags", { ...anonymous, raw: '{"key":' }), 401, "missing_api_key");
      expectError(
        await call(t, "POST", "/v1/flags", { ...anonymous, raw: "key=x", headers: { "content-type": "text/plain" } }),
        401,
        "missing_api_key",
      );
      expectError(
        await call(t, "POST", "/v1/flags", {
          ...anonymous,
          raw: "{}",
          headers: { "content-type": "not a media type" },
        }),
        401,
        "missing_api_key",
      );
      expectError(
        await call(t, "POST", "/v1/flags", { ...anonymous, raw: `"${"x".repeat(2 * 1024 * 1024)}"` }),
        401,
        "missing_api_key",
      );
      const unknown = { key: "fp_unknown-key-0000000000000000000000" };
      expectError(await call(t, "GET", "/v1/flags/does-not-exist", unknown), 403, "invalid_api_key");
      expectError(await call(t, "POST", "/v1/flags", { ...unknown, raw: '{"key":' }), 403, "invalid_api_key");
    });

    it("checks the scope before the body and before existence", async () => {
      const reader = await t.fp.keys.create({ scopes: ["flags:read"] });
      expectError(await call(t, "POST", "/v1/flags", { key: reader.key, raw: '{"key":' }), 403, "restricted_api_key");
      expectError(
        await call(t, "PATCH", "/v1/flags/does-not-exist", { key: reader.key, json: { enabled: true } }),
        403,
        "restricted_api_key",
      );
      expectError(
        await call(t, "POST", "/v1/flags/does-not-exist/evaluate", { key: reader.key, json: {} }),
        403,
        "restricted_api_key",
      );
    });

    it("answers email paths in Resend's shape {statusCode, name, message}", async () => {
      expectResendError(
        await call(t, "GET", "/v1/emails/4ef9a417-02e9-4d39-ad75-9611e0fcc33c", { key: null }),
        401,
        "missing_api_key",
      );
      expectResendError(
        await call(t, "GET", "/v1/emails/4ef9a417-02e9-4d39-ad75-9611e0fcc33c", {
          key: "fp_unknown-key-0000000000000000000000",
        }),
        403,
        "invalid_api_key",
      );
      expectResendError(await call(t, "GET", "/v1/emails/4ef9a417-02e9-4d39-ad75-9611e0fcc33c/nope"), 404, "not_found");
      expectResendError(await call(t, "GET", "/v1/emails/unknown/path/here"), 404, "not_found");
    });
  });
}
