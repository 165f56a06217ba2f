import { describe, expect, it } from "vitest";
import { createHandler } from "../../adapters/http/index.js";
import { RateLimiter } from "../../adapters/http/rate-limit.js";
import { createFlagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";

/** The token bucket on a fake clock: refill, headers, and options it refuses. */
describe("RateLimiter", () => {
  it("refills at perSecond and reports how long until a token is back", () => {
    let now = 0;
    const limiter = new RateLimiter({ burst: 2, perSecond: 0.5 }, { now: () => now });
    expect(limiter.take("k").headers).toEqual({
      "ratelimit-limit": "2",
      "ratelimit-remaining": "1",
      "ratelimit-reset": "2",
    });
    expect(limiter.take("k").allowed).toBe(true);
    const refused = limiter.take("k");
    expect(refused.allowed).toBe(false);
    expect(refused.headers["retry-after"]).toBe("2");
    expect(refused.headers["ratelimit-reset"]).toBe("4");
    now = 2_000;
    expect(limiter.take("k").allowed).toBe(true);
    expect(limiter.take("other").headers["ratelimit-remaining"]).toBe("1");
  });

  it("refuses options that cannot work, when the handler is built", () => {
    const fp = createFlagpost({ storage: memoryStorage() });
    for (const rateLimit of [
      { perSecond: 0 },
      { perSecond: -1 },
      { burst: 0 },
      { burst: Number.NaN },
      { perSecond: Number.POSITIVE_INFINITY },
    ]) {
      expect(() => createHandler(fp, { rateLimit }), JSON.stringify(rateLimit)).toThrow(
        expect.objectContaining({ name: "FlagpostError", code: "validation_error" }),
      );
    }
    expect(() => createHandler(fp, { rateLimit: { burst: 1, perSecond: 0.001 } })).not.toThrow();
    expect(() => createHandler(fp, { bodyBudget: 0 })).toThrow(
      expect.objectContaining({
        name: "FlagpostError",
        code: "validation_error",
        message: expect.stringContaining("bodyBudget"),
      }),
    );
  });
});
