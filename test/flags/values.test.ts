import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { evaluate } from "../../src/flags/evaluation/index.js";
import { FlagClient } from "../../src/flags/client/index.js";
import type { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { SnapshotFlag } from "../../src/flags/evaluation/compile.js";

// Flag values (issue 27): what the schema accepts and refuses, and what getValue, getValueDetail,
// getVariant and evaluate() answer for them.

const banner: SnapshotFlag = {
  key: "banner",
  enabled: true,
  rules: [
    { type: "attribute", attribute: "plan", operator: "equals", value: "pro", variant: "gold" },
    { type: "percentage", percentage: 100 },
  ],
  variants: [
    { key: "plain", weight: 100, value: { text: "Hello", color: "grey" } },
    { key: "gold", weight: 0, value: { text: "Welcome back", color: "gold" } },
  ],
};
const limit: SnapshotFlag = {
  key: "max-upload-mb",
  enabled: true,
  rules: [],
  variants: [
    { key: "small", weight: 0, value: 10 },
    { key: "large", weight: 100, value: 250 },
  ],
};
const off: SnapshotFlag = { ...limit, key: "off", enabled: false };
const noValues: SnapshotFlag = {
  key: "split",
  enabled: true,
  rules: [],
  variants: [
    { key: "a", weight: 50 },
    { key: "b", weight: 50 },
  ],
};

function client(...flags: SnapshotFlag[]): FlagClient {
  const { client, feed } = FlagClient.create();
  feed.replace(flags);
  return client;
}

async function refusal(work: Promise<unknown>): Promise<{ message: string; details: unknown }> {
  const error = (await work.then(
    () => undefined,
    (e: unknown) => e,
  )) as FlagpostError | undefined;
  expect(error?.code).toBe("validation_error");
  return { message: error!.message, details: error!.details };
}

describe("variant values in the flag schema", () => {
  const fp = () => createFlagpost({ storage: memoryStorage(), logger: silentLogger });
  const two = (a: unknown, b: unknown) => [
    { key: "a", weight: 50, value: a },
    { key: "b", weight: 50, value: b },
  ];

  it("accepts values of every JSON type, one type per flag", async () => {
    const flags = fp();
    for (const [i, pair] of [
      ["x", "y"],
      [1, 2.5],
      [true, false],
      [{ a: 1 }, {}],
      [[1], []],
    ].entries()) {
      const created = await flags.flags.create({ key: `f${i}`, variants: two(pair[0], pair[1]) });
      expect(created.variants.map((v) => v.value)).toEqual(pair);
    }
  });

  it("refuses mixed types, a missing value, null, non-JSON and more than 32 KiB, naming the path", async () => {
    const flags = fp().flags;
    expect((await refusal(flags.create({ key: "m", variants: two("x", 1) }))).message).toBe(
      "\"variants.1.value\" is a number, but the flag's values are string values: every variant's value must have the same JSON type",
    );
    expect((await refusal(flags.create({ key: "m", variants: two({}, []) }))).message).toContain(
      '"variants.1.value" is an array, but the flag\'s values are object values',
    );
    expect((await refusal(flags.create({ key: "m", variants: two(1, undefined) }))).message).toBe(
      '"variants.1.value" is missing: when one variant has a value, every variant needs one',
    );
    expect((await refusal(flags.create({ key: "m", variants: two(null, null) }))).message).toContain(
      '"variants.0.value" must not be null (leave value out instead)',
    );
    expect((await refusal(flags.create({ key: "m", variants: two(Number.NaN, 1) }))).message).toContain(
      '"variants.0.value" must be a finite number',
    );
    expect((await refusal(flags.create({ key: "m", variants: two({ at: new Date(0) }, {}) }))).message).toContain(
      '"variants.0.value" must be a plain JSON object',
    );
    const big = "x".repeat(32 * 1024 - 2); // with its quotes: 32 KiB exactly
    await flags.create({ key: "at-limit", variants: two(big, "") });
    expect((await refusal(flags.create({ key: "m", variants: two(`${big}y`, "") }))).message).toBe(
      '"variants.0.value" must be at most 32768 bytes as JSON, not 32769',
    );
  });

  it("refuses a rule serving a variant the flag does not have, on create and after a PATCH", async () => {
    const flags = fp().flags;
    const rules = [{ type: "users" as const, userIds: ["u1"], variant: "c" }];
    expect((await refusal(flags.create({ key: "r", rules, variants: two(1, 2) }))).message).toBe(
      '"rules.0.variant" serves variant "c", which is not one of the flag\'s variants (a, b)',
    );
    expect((await refusal(flags.create({ key: "r", rules }))).message).toBe(
      '"rules.0.variant" serves variant "c", but the flag has no variants',
    );
    await flags.create({ key: "r", rules: [{ ...rules[0]!, variant: "b" }], variants: two(1, 2) });
    const renamed = [
      { key: "a", weight: 50, value: 1 },
      { key: "c", weight: 50, value: 2 },
    ];
    expect((await refusal(flags.update("r", { variants: renamed }))).details).toEqual([
      { path: "rules.0.variant", message: 'serves variant "b", which is not one of the flag\'s variants (a, c)' },
    ]);
    await flags.update("r", { variants: renamed, rules });
    expect((await flags.get("r")).rules[0]).toEqual(rules[0]);
  });
});

describe("evaluation with values", () => {
  it("serves a rule's named variant (without a userId too) and the weighted one otherwise, with its value", () => {
    expect(evaluate(banner, { attributes: { plan: "pro" } })).toEqual({
      enabled: true,
      reason: "rule_match",
      ruleIndex: 0,
      variant: "gold",
      value: { text: "Welcome back", color: "gold" },
    });
    expect(evaluate(banner, { userId: "u1" })).toEqual({
      enabled: true,
      reason: "rule_match",
      ruleIndex: 1,
      variant: "plain",
      value: { text: "Hello", color: "grey" },
    });
    expect(evaluate(noValues, { userId: "u1" })).not.toHaveProperty("value");
    const c = client(banner);
    expect(c.evaluate("banner", { attributes: { plan: "pro" } })).toEqual(
      evaluate(banner, { attributes: { plan: "pro" } }),
    );
    expect(c.getVariant("banner", { attributes: { plan: "pro" } })).toBe("gold");
  });

  it("getValue answers the value, or the default when off, unknown, valueless, unassigned or of another type", () => {
    const c = client(banner, limit, off, noValues);
    expect(c.getValue("max-upload-mb", { userId: "u1" }, 5)).toBe(250);
    expect(c.getValue("max-upload-mb", undefined, 5)).toBe(5); // no userId: no weighted variant
    expect(c.getValue("banner", { attributes: { plan: "pro" } }, {})).toEqual({ text: "Welcome back", color: "gold" });
    expect(c.getValue("off", { userId: "u1" }, 5)).toBe(5);
    expect(c.getValue("nope", { userId: "u1" }, 5)).toBe(5);
    expect(c.getValue("split", { userId: "u1" }, "x")).toBe("x");
    expect(c.getValue("max-upload-mb", { userId: "u1" }, "5")).toBe("5");
    expect(c.getValue("banner", { attributes: { plan: "pro" } }, [])).toEqual([]);
  });

  it("hands out a frozen copy: a caller cannot change what others read", () => {
    const c = client(banner);
    const value = c.getValue("banner", { attributes: { plan: "pro" } }, {}) as { text: string };
    expect(Object.isFrozen(value)).toBe(true);
    expect(() => {
      value.text = "changed";
    }).toThrow(TypeError);
    expect(c.getValue("banner", { attributes: { plan: "pro" } }, {})).toEqual({ text: "Welcome back", color: "gold" });
    expect(Object.isFrozen(banner.variants![1]!.value)).toBe(false); // the flag as stored is left alone
  });

  it("getValueDetail gives the reason, type_mismatch included", () => {
    const c = client(banner, limit, off, noValues);
    expect(c.getValueDetail("max-upload-mb", { userId: "u1" }, 5)).toEqual({
      value: 250,
      reason: "no_rules",
      variant: "large",
    });
    expect(c.getValueDetail("max-upload-mb", { userId: "u1" }, "5")).toEqual({
      value: "5",
      reason: "type_mismatch",
      errorMessage: 'flag "max-upload-mb" serves number values; the default is string',
    });
    expect(c.getValueDetail("off", { userId: "u1" }, 5)).toEqual({ value: 5, reason: "disabled" });
    expect(c.getValueDetail("nope", {}, 5)).toEqual({ value: 5, reason: "flag_not_found" });
    expect(c.getValueDetail("split", { userId: "u1" }, "x")).toMatchObject({ value: "x", reason: "no_rules" });
  });

  it("never throws: a context whose getters throw answers the default", () => {
    const c = client(limit);
    const hostile = {
      get userId(): string {
        throw new Error("boom");
      },
    };
    expect(c.getValue("max-upload-mb", hostile, 7)).toBe(7);
    expect(c.getValueDetail("max-upload-mb", hostile, 7)).toEqual({ value: 7, reason: "error", errorMessage: "boom" });
    expect(c.errorCount).toBe(2);
  });

  it("answers the default with reason error for a stored flag whose values are of mixed types", () => {
    const broken = {
      ...limit,
      key: "broken",
      variants: [
        { key: "a", weight: 100, value: 1 },
        { key: "b", weight: 0, value: "1" },
      ],
    };
    const c = client(broken);
    expect(c.getValue("broken", { userId: "u1" }, 3)).toBe(3);
    expect(c.getValueDetail("broken", { userId: "u1" }, 3)).toMatchObject({ value: 3, reason: "error" });
  });
});

describe("the compiled client agrees with evaluate() on variants and values", () => {
  it("for random flags whose rules may serve a named variant, and random contexts", () => {
    const users = ["u1", "u2", "u3", "ü-4"];
    const flagArb = fc.integer({ min: 2, max: 4 }).chain((count) =>
      fc.record({
        key: fc.constantFrom("f", "checkout", "Dark_Mode"),
        enabled: fc.boolean(),
        variants: fc
          .array(fc.integer({ min: 0, max: 100 }), { minLength: count - 1, maxLength: count - 1 })
          .chain((cuts) => {
            const at = [0, ...cuts.sort((a, b) => a - b), 100];
            return fc
              .option(fc.array(fc.string(), { minLength: count, maxLength: count }), { nil: undefined })
              .map((values) =>
                at.slice(1).map((end, i) => ({
                  key: `v${i}`,
                  weight: end - at[i]!,
                  ...(values === undefined ? {} : { value: values[i] }),
                })),
              );
          }),
        rules: fc.array(
          fc.record(
            {
              type: fc.constant("users" as const),
              userIds: fc.subarray(users, { minLength: 1 }),
              variant: fc.integer({ min: 0, max: count - 1 }).map((i) => `v${i}`),
            },
            { requiredKeys: ["type", "userIds"] },
          ),
          { maxLength: 3 },
        ),
      }),
    );
    const contextArb = fc.record({ userId: fc.constantFrom(...users, "other") }, { requiredKeys: [] });
    fc.assert(
      fc.property(flagArb, contextArb, (flag, context) => {
        expect(client(flag).evaluate(flag.key, context)).toEqual(evaluate(flag, context));
      }),
      { numRuns: 2000 },
    );
  });
});
