import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileFlag,
  OUTCOME_DISABLED,
  OUTCOME_NO_MATCH,
  OUTCOME_NO_RULES,
} from "../../src/flags/evaluation/compile.js";
import { outcomeOf } from "../../src/flags/evaluation/prerequisite-plan.js";
import { hashPrefix, murmur3WithPrefix } from "../../src/flags/evaluation/murmur3-prefix.js";
import { ATTRIBUTE_OPERATORS, evaluate, murmur3Utf8 } from "../../src/flags/evaluation/index.js";
import type { EvaluationResult, Rule } from "../../src/flags/index.js";
import { bucketCases } from "./fixtures/index.js";

// The compiled evaluator (what FlagClient runs) against the reference evaluate(), beyond the
// shared fixtures: golden buckets through the prefix hash, and random flags and contexts.

describe("murmur3WithPrefix", () => {
  it.each(bucketCases.map((c) => [`${c.flagKey}:${c.userId}`, c] as const))(
    "reproduces the golden hash of %s",
    (_name, c) => {
      expect(murmur3WithPrefix(hashPrefix(`${c.flagKey}:`), c.userId)).toBe(c.hash);
    },
  );

  it("equals murmur3Utf8(prefix + rest) for any prefix and rest, lone surrogates included", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "binary", maxLength: 12 })),
        (prefix, rest) => {
          expect(murmur3WithPrefix(hashPrefix(prefix), rest)).toBe(murmur3Utf8(prefix + rest));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

const scalar = fc.oneof(
  fc.constantFrom("pro", "free", "1", "true", "", "FR", "1.2.3", "v2.0.0-beta.1", "2026-01-01", "2026-01-01T00:00:00Z"),
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -3, max: 3 }),
  fc.double({ noNaN: false }),
  fc.boolean(),
);
const value = fc.oneof(scalar, fc.array(scalar, { minLength: 1, maxLength: 4 }));
const ids = fc.constantFrom("u1", "u2", "user-7", "ü", "用户-7", "staff-9");

const ruleArb: fc.Arbitrary<Rule> = fc.oneof(
  fc.record({ type: fc.constant("users" as const), userIds: fc.array(ids, { minLength: 1, maxLength: 3 }) }),
  fc.record({
    type: fc.constant("attribute" as const),
    attribute: fc.constantFrom("plan", "n", "userId", "app", "signup", "constructor"),
    operator: fc.constantFrom(...ATTRIBUTE_OPERATORS),
    value,
  }) as fc.Arbitrary<Rule>,
  fc.record({
    type: fc.constant("percentage" as const),
    percentage: fc.integer({ min: 0, max: 10_000 }).map((n) => n / 100),
  }),
);

const attributeValue = fc.oneof(
  scalar,
  fc.constant(null),
  fc.constant(undefined),
  fc.array(scalar, { maxLength: 2 }),
  fc.constant({}),
);
const contextArb = fc.record(
  {
    userId: ids,
    attributes: fc.dictionary(fc.constantFrom("plan", "n", "userId", "app", "signup"), attributeValue, { maxKeys: 4 }),
  },
  { requiredKeys: [] },
);

function compiled(
  flag: { key: string; enabled: boolean; rules: Rule[] },
  context: { userId?: string; attributes?: Record<string, unknown> },
): EvaluationResult {
  const outcome = outcomeOf(compileFlag(flag), context.userId, context.attributes);
  if (outcome >= 0) return { enabled: true, reason: "rule_match", ruleIndex: outcome };
  if (outcome === OUTCOME_DISABLED) return { enabled: false, reason: "disabled" };
  if (outcome === OUTCOME_NO_RULES) return { enabled: true, reason: "no_rules" };
  expect(outcome).toBe(OUTCOME_NO_MATCH);
  return { enabled: false, reason: "no_rule_match" };
}

describe("compiled flags agree with evaluate()", () => {
  it("on random flags and contexts (values of every type, for every operator)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("f", "checkout", "Dark_Mode"),
        fc.boolean(),
        fc.array(ruleArb, { maxLength: 4 }),
        contextArb,
        (key, enabled, rules, context) => {
          const flag = { key, enabled, rules };
          expect(compiled(flag, context)).toEqual(evaluate(flag, context));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("reads own attributes only, as evaluate() does", () => {
    const flag = {
      key: "f",
      enabled: true,
      rules: [{ type: "attribute" as const, attribute: "plan", operator: "equals" as const, value: "pro" }],
    };
    const inherited = Object.create({ plan: "pro" }) as Record<string, unknown>;
    expect(compiled(flag, { attributes: inherited })).toEqual(evaluate(flag, { attributes: inherited }));
    expect(compiled(flag, { attributes: inherited }).enabled).toBe(false);
  });
});
