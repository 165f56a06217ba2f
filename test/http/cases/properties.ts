import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { type RandomRequest, randomRequest, SEEDED_KEYS, unauthenticatedRequest } from "./arbitraries.js";
import { expectErrorShape, type Reply, readReply } from "./client.js";

export interface PropertyOptions {
  numRuns: number;
}

/**
 * Property-based: random methods, paths, headers and bodies against every flag route. Nothing
 * answers 5xx, every error is docs/api.md's JSON error shape, and a rejected request changes nothing.
 */
export function propertyCases(start: Start, { numRuns }: PropertyOptions): void {
  describe("random requests (fast-check)", () => {
    let t: Target;
    const keys: Record<"reader" | "revoked", string> = { reader: "", revoked: "" };

    beforeAll(async () => {
      t = await start({
        http: {
          rateLimit: { burst: 1_000_000, perSecond: 1_000_000, anonymous: { burst: 1_000_000, perSecond: 1_000_000 } },
        },
      });
      keys.reader = (await t.fp.keys.create({ scopes: ["flags:read"] })).key;
      const revoked = await t.fp.keys.create({ scopes: ["full_access"] });
      await t.fp.keys.revoke(revoked.id);
      keys.revoked = revoked.key;
    });
    afterAll(() => t.close());

    /** Puts the seeded flags back (a random request may have deleted or changed one legitimately). */
    async function reseed(): Promise<void> {
      const seeds = {
        alpha: {
          description: "users and attributes",
          enabled: true,
          rules: [
            { type: "users" as const, userIds: ["u1"] },
            { type: "attribute" as const, attribute: "plan", operator: "in" as const, value: ["pro", "team"] },
          ],
        },
        beta: { description: "half", enabled: true, rules: [{ type: "percentage" as const, percentage: 50 }] },
        gamma: { description: "", enabled: false, rules: [] },
      };
      for (const key of SEEDED_KEYS) {
        const existing = await t.fp.flags.get(key).catch(() => undefined);
        if (!existing) await t.fp.flags.create({ key, ...seeds[key] });
      }
    }

    const snapshot = async () => JSON.stringify(await t.fp.flags.all());

    async function send(request: RandomRequest): Promise<Reply> {
      const headers: Record<string, string> = {};
      if (request.auth.kind === "valid") headers.authorization = `Bearer ${t.key}`;
      else if (request.auth.kind === "reader") headers.authorization = `Bearer ${keys.reader}`;
      else if (request.auth.kind === "revoked") headers.authorization = `Bearer ${keys.revoked}`;
      else if (request.auth.kind === "raw") headers.authorization = request.auth.value;
      if (request.contentType !== undefined) headers["content-type"] = request.contentType;
      // A string body would make fetch add text/plain; bytes keep the Content-Type the case chose.
      const body = request.body === undefined ? undefined : new TextEncoder().encode(request.body);
      return readReply(
        await fetch(t.url + request.path, { method: request.method, headers, body }),
        `${request.method} ${request.path}`,
      );
    }

    /**
     * Whether some segment of the path, as sent, has broken percent-encoding ("%", "%zz", invalid
     * UTF-8). "As sent": fetch's URL parser first resolves "." and ".." segments, so "/flags/%/.."
     * reaches the server as "/flags/" and is not malformed.
     */
    function malformed(path: string): boolean {
      return new URL(t.url + path).pathname.split("/").some((segment) => {
        try {
          decodeURIComponent(segment);
          return false;
        } catch {
          return true;
        }
      });
    }

    function expectWellFormed(request: RandomRequest, reply: Reply): void {
      if (t.rejectsMalformedPaths && malformed(request.path)) {
        // The framework's own answer, before flagpost runs (see Target.rejectsMalformedPaths).
        expect(reply.status).toBe(400);
        return;
      }
      expect(reply.status, reply.text.slice(0, 300)).toBeLessThan(500);
      expect(reply.headers.get("ratelimit-limit")).not.toBeNull();
      if (reply.status >= 400 && request.method !== "HEAD") expectErrorShape(reply);
      if (reply.status === 405) expect(reply.headers.get("allow")).toMatch(/^[A-Z]+(, [A-Z]+)*$/);
      if (reply.status < 300 && reply.status !== 204 && request.method !== "HEAD")
        expect(Object.keys(reply.body)).toEqual(["data"]);
    }

    it(`answers every request with a well-formed response, and rejected ones change nothing (${numRuns} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(randomRequest, async (request) => {
          await reseed();
          const before = await snapshot();
          const reply = await send(request);
          expectWellFormed(request, reply);
          if (reply.status >= 400)
            expect(await snapshot(), `${request.method} ${request.path} → ${reply.status}`).toBe(before);
        }),
        { numRuns },
      );
    });

    it(`answers 401 or 403 to every request without a valid key, whatever else it holds (${numRuns} runs)`, async () => {
      await reseed();
      const before = await snapshot();
      await fc.assert(
        fc.asyncProperty(unauthenticatedRequest, async (request) => {
          const reply = await send(request);
          expectWellFormed(request, reply);
          if (!(t.rejectsMalformedPaths && malformed(request.path))) expect([401, 403]).toContain(reply.status);
        }),
        { numRuns },
      );
      expect(await snapshot()).toBe(before);
    });
  });
}
