import { describe, expect, it } from "vitest";
import { bucketOf, evaluate, murmur3Utf8 } from "../../src/flags/evaluation/index.js";
import { parseInput } from "../../src/validation.js";
import { ruleSchema } from "../../src/flags/index.js";
import { murmur3Bytes } from "../support/murmur3-reference.js";
import { bucketCases, evaluationCases } from "./fixtures/index.js";

describe("evaluate() on the shared fixtures", () => {
  it.each(evaluationCases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    // Every fixture flag must also be valid input, so fixtures cannot drift from the schema.
    for (const rule of c.flag.rules) parseInput(ruleSchema, rule);
    expect(evaluate(c.flag, c.context)).toEqual(c.expected);
  });
});

describe("bucketing", () => {
  it("reproduces MurmurHash3's published vectors in the reference implementation", () => {
    const enc = new TextEncoder();
    expect(murmur3Bytes(enc.encode(""), 0)).toBe(0);
    expect(murmur3Bytes(enc.encode("hello"), 0)).toBe(0x248bfa47);
    expect(murmur3Bytes(enc.encode("The quick brown fox jumps over the lazy dog"), 0)).toBe(0x2e4ff723);
  });

  it.each(bucketCases.map((c) => [`${c.flagKey}:${c.userId}`, c] as const))("golden bucket %s", (_name, c) => {
    expect(murmur3Utf8(`${c.flagKey}:${c.userId}`)).toBe(c.hash);
    expect(murmur3Bytes(new TextEncoder().encode(`${c.flagKey}:${c.userId}`))).toBe(c.hash);
    expect(bucketOf(c.flagKey, c.userId)).toBe(c.bucket);
  });

  it("is sticky: raising the percentage only adds users", () => {
    const users = Array.from({ length: 2000 }, (_, i) => `user-${i}`);
    let previous = new Set<string>();
    for (const percentage of [0, 5, 12.5, 30, 50, 99.99, 100]) {
      const flag = { key: "rollout", enabled: true, rules: [{ type: "percentage" as const, percentage }] };
      const on = new Set(users.filter((userId) => evaluate(flag, { userId }).enabled));
      for (const u of previous) expect(on.has(u)).toBe(true);
      previous = on;
    }
    expect(previous.size).toBe(users.length);
  });

  it("spreads 20,000 users evenly enough that 25% lands within 23–27%", () => {
    const flag = { key: "spread", enabled: true, rules: [{ type: "percentage" as const, percentage: 25 }] };
    let on = 0;
    for (let i = 0; i < 20_000; i++) if (evaluate(flag, { userId: `u${i}` }).enabled) on++;
    expect(on / 20_000).toBeGreaterThan(0.23);
    expect(on / 20_000).toBeLessThan(0.27);
  });
});
