import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { call, type CallOptions, expectError, type Reply } from "./client.js";

function expectRateHeaders(reply: Reply, what: string): void {
  for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) {
    expect(reply.headers.get(name), `${name} on ${what} (${reply.status})`).toMatch(/^\d+$/);
  }
}

/** docs/api.md "Errors", rate limit row: a token bucket per key, 429 + Retry-After, headers on every response. */
export function rateLimitCases(start: Start): void {
  describe("rate limit", () => {
    describe("with a bucket of 3 refilled at 1 per second", () => {
      let t: Target;
      beforeAll(async () => {
        t = await start({ http: { rateLimit: { burst: 3, perSecond: 1 } } });
      });
      afterAll(() => t.close());

      it("lets a burst through, counting down, then answers 429 with Retry-After", async () => {
        const remaining: string[] = [];
        for (let i = 0; i < 3; i++) {
          const reply = await call(t, "GET", "/v1/flags");
          expect(reply.status).toBe(200);
          expect(reply.headers.get("ratelimit-limit")).toBe("3");
          remaining.push(reply.headers.get("ratelimit-remaining")!);
        }
        expect(remaining).toEqual(["2", "1", "0"]);
        const limited = await call(t, "GET", "/v1/flags");
        expectError(limited, 429, "rate_limit_exceeded");
        expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
        expectRateHeaders(limited, "429");
        expect(limited.headers.get("ratelimit-remaining")).toBe("0");
      });

      it("keeps one bucket per key: another key is not limited", async () => {
        const other = await t.fp.keys.create({ scopes: ["flags:read"] });
        const reply = await call(t, "GET", "/v1/flags", { key: other.key });
        expect(reply.status).toBe(200);
        expect(reply.headers.get("ratelimit-remaining")).toBe("2");
      });

      it("limits before it validates: the limited key gets 429 even for a bad request", async () => {
        expectError(await call(t, "POST", "/v1/flags", { raw: "{" }), 429, "rate_limit_exceeded");
      });
    });

    describe("with the default options", () => {
      let t: Target;
      beforeAll(async () => {
        t = await start();
        await t.fp.flags.create({ key: "f" });
      });
      afterAll(() => t.close());

      it("sends ratelimit-limit, -remaining and -reset on every /v1 response, errors included", async () => {
        const restricted = await t.fp.keys.create({ scopes: ["flags:evaluate"] });
        const requests: [string, string, string, CallOptions][] = [
          ["200 list", "GET", "/v1/flags", {}],
          ["201 create", "POST", "/v1/flags", { json: { key: "g" } }],
          ["204 delete", "DELETE", "/v1/flags/g", {}],
          ["400", "POST", "/v1/flags", { raw: "{" }],
          ["401", "GET", "/v1/flags", { key: null }],
          ["403 invalid", "GET", "/v1/flags", { key: "fp_nope-nope-nope-nope-nope" }],
          ["403 restricted", "GET", "/v1/flags", { key: restricted.key }],
          ["404", "GET", "/v1/flags/none", {}],
          ["404 emails", "GET", "/v1/emails/none", {}],
          ["405", "PUT", "/v1/flags", {}],
          ["409", "POST", "/v1/flags", { json: { key: "f" } }],
          ["413", "POST", "/v1/flags", { raw: `"${"x".repeat(1024 * 1024)}"` }],
          ["415", "POST", "/v1/flags", { raw: "{}", headers: { "content-type": "text/plain" } }],
          ["422", "POST", "/v1/flags", { json: {} }],
        ];
        for (const [what, method, path, options] of requests) {
          const reply = await call(t, method, path, options);
          expect(reply.status, what).toBe(Number(what.slice(0, 3)));
          expectRateHeaders(reply, what);
          // Without a key this process knows, the client address's bucket answers (100 by default).
          expect(reply.headers.get("ratelimit-limit"), what).toBe(
            what === "401" || what === "403 invalid" ? "100" : "2000",
          );
        }
      });
    });

    describe("switched off", () => {
      let t: Target;
      beforeAll(async () => {
        t = await start({ http: { rateLimit: false } });
      });
      afterAll(() => t.close());

      it("sends no ratelimit headers and never answers 429", async () => {
        for (let i = 0; i < 5; i++) {
          const reply = await call(t, "GET", "/v1/flags");
          expect(reply.status).toBe(200);
          expect(reply.headers.get("ratelimit-limit")).toBeNull();
        }
      });
    });
  });
}
