import fc from "fast-check";
import murmurhash from "murmurhash-js";
import { describe, expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { evaluate, type SnapshotFlag, variantBucketOf, variantOf } from "../../src/flags/evaluation/index.js";
import { FlagClient } from "../../src/flags/client/index.js";
import { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import { murmur3Bytes } from "../support/murmur3-reference.js";
import { variantBuckets } from "./fixtures/index.js";

const { variants, cases } = variantBuckets;
const split = (key: string, rules: SnapshotFlag["rules"] = []): SnapshotFlag => ({
  key,
  enabled: true,
  rules,
  variants,
});

describe("variant buckets (golden values shared with other SDKs)", () => {
  it.each(cases.map((c) => [`${c.flagKey}:${c.userId}`, c] as const))("reproduces %s", (_name, c) => {
    const salted = new TextEncoder().encode(`variant:${c.flagKey}:${c.userId}`);
    expect(murmur3Bytes(salted)).toBe(c.hash); // an independent implementation agrees with the file
    expect(variantBucketOf(c.flagKey, c.userId)).toBe(c.bucket);
    expect(variantOf(c.flagKey, variants, c.userId)).toBe(c.variant);
    const { client, feed } = FlagClient.create();
    feed.replace([split(c.flagKey)]);
    expect(client.getVariant(c.flagKey, { userId: c.userId })).toBe(c.variant);
  });

  it("uses murmurhash-js exactly for ASCII ids, and a salt that separates it from the rollout bucket", () => {
    for (const c of cases.filter((x) => /^[\x00-\x7f]*$/.test(x.userId))) {
      expect(murmurhash.murmur3(`variant:${c.flagKey}:${c.userId}`, 0)).toBe(c.hash);
    }
    expect(cases.filter((c) => c.bucket !== c.rolloutBucket).length).toBe(cases.length);
  });

  it("spreads users by weight, independently of a percentage rollout", () => {
    const weights = [
      { key: "a", weight: 20 },
      { key: "b", weight: 30 },
      { key: "c", weight: 50 },
    ];
    const counts = { a: 0, b: 0, c: 0 } as Record<string, number>;
    let inRollout = 0;
    const flag = {
      key: "spread",
      enabled: true,
      rules: [{ type: "percentage" as const, percentage: 20 }],
      variants: weights,
    };
    for (let i = 0; i < 40_000; i++) {
      const result = evaluate(flag, { userId: `user-${i}` });
      if (!result.enabled) continue;
      inRollout += 1;
      counts[result.variant!]! += 1;
    }
    // Were the two buckets the same hash, every user of a 20 % rollout would land in "a".
    expect(inRollout / 40_000).toBeCloseTo(0.2, 1);
    expect(counts.a! / inRollout).toBeCloseTo(0.2, 1);
    expect(counts.b! / inRollout).toBeCloseTo(0.3, 1);
    expect(counts.c! / inRollout).toBeCloseTo(0.5, 1);
  });

  it("never assigns a variant of weight 0", () => {
    const weights = [
      { key: "off", weight: 0 },
      { key: "on", weight: 100 },
    ];
    for (let i = 0; i < 2000; i++) expect(variantOf("zero", weights, `u${i}`)).toBe("on");
  });
});

describe("getVariant and evaluate agree with the reference evaluator", () => {
  it("on random contexts, with rules, disabled flags and unknown keys", () => {
    const { client, feed } = FlagClient.create();
    const flags = [
      split("all"),
      split("half", [{ type: "percentage", percentage: 50 }]),
      split("pro", [{ type: "attribute", attribute: "plan", operator: "equals", value: "pro" }]),
      { ...split("off"), enabled: false },
      { key: "plain", enabled: true, rules: [], variants: [] },
    ];
    feed.replace(flags);
    fc.assert(
      fc.property(
        fc.constantFrom("all", "half", "pro", "off", "plain", "missing"),
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.constantFrom("pro", "free"),
        (key, userId, plan) => {
          const flag = flags.find((f) => f.key === key);
          const context = { userId, attributes: { plan } };
          const expected = flag
            ? evaluate(flag as Parameters<typeof evaluate>[1] & SnapshotFlag, context).variant
            : undefined;
          expect(client.getVariant(key, context)).toBe(expected);
          expect(client.getVariant(key, { ...context, default: "fallback" })).toBe(expected ?? "fallback");
          if (flag) expect(client.evaluate(key, context).variant).toBe(expected);
          if (flag) expect(client.snapshotEvaluate(key, context)?.variant).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("answers the default without a userId, for a broken flag, and on hostile input, never throwing", () => {
    const { client, feed } = FlagClient.create();
    feed.replace([split("s"), { key: "broken", enabled: true, rules: [], variants: "nope" as never }]);
    expect(client.getVariant("s", {})).toBeUndefined();
    expect(client.getVariant("s", { default: "d" })).toBe("d");
    expect(client.getVariant("broken", { userId: "u1", default: "d" })).toBe("d");
    const hostile = Object.defineProperty({}, "userId", {
      get: () => {
        throw new Error("boom");
      },
    });
    expect(client.getVariant("s", hostile)).toBeUndefined();
    expect(client.errorCount).toBe(1);
  });
});

describe("variants through createFlagpost", () => {
  it("validates variants per docs/experiments.md and answers them in evaluate", async () => {
    const fp = createFlagpost({ storage: memoryStorage() });
    await fp.ready();
    const bad = async (list: unknown, path: string) => {
      const error = await fp.flags
        .create({ key: `bad${Math.random().toString(36).slice(2)}`, variants: list as never })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlagpostError);
      expect((error as FlagpostError).code).toBe("validation_error");
      expect((error as FlagpostError).details?.map((d) => d.path)).toContain(path);
    };
    await bad([{ key: "only", weight: 100 }], "variants");
    await bad(
      [
        { key: "a", weight: 50 },
        { key: "b", weight: 49.99 },
      ],
      "variants",
    );
    await bad(
      [
        { key: "a", weight: 50 },
        { key: "a", weight: 50 },
      ],
      "variants.1.key",
    );
    await bad(
      [
        { key: "a", weight: 50.001 },
        { key: "b", weight: 49.999 },
      ],
      "variants.0.weight",
    );
    await bad(
      [
        { key: "-a", weight: 50 },
        { key: "b", weight: 50 },
      ],
      "variants.0.key",
    );
    await bad(
      [
        { key: "a", weight: -1 },
        { key: "b", weight: 101 },
      ],
      "variants.0.weight",
    );
    await bad(
      [
        { key: "a", weight: 50, extra: 1 },
        { key: "b", weight: 50 },
      ],
      "variants.0.extra",
    );
    await bad(
      Array.from({ length: 21 }, (_, i) => ({ key: `v${i}`, weight: i === 0 ? 80 : 1 })),
      "variants",
    );

    const created = await fp.flags.create({ key: "new-checkout", enabled: true, variants });
    expect(created.variants).toEqual(variants);
    const golden = cases.find((c) => c.flagKey === "new-checkout")!;
    expect(await fp.flags.evaluate("new-checkout", { userId: golden.userId })).toEqual({
      enabled: true,
      reason: "no_rules",
      variant: golden.variant,
    });
    expect(fp.getVariant("new-checkout", { userId: golden.userId })).toBe(golden.variant);
    await fp.flags.update("new-checkout", { enabled: false });
    expect(await fp.flags.evaluate("new-checkout", { userId: golden.userId })).toEqual({
      enabled: false,
      reason: "disabled",
    });
    expect(fp.getVariant("new-checkout", { userId: golden.userId, default: "control" })).toBe("control");
    const thirds = [
      { key: "x", weight: 33.33 },
      { key: "y", weight: 33.33 },
      { key: "z", weight: 33.34 },
    ];
    expect((await fp.flags.update("new-checkout", { variants: thirds })).variants).toEqual(thirds);
    expect((await fp.flags.update("new-checkout", { variants: [] })).variants).toEqual([]);
    await fp.close();
  });
});
