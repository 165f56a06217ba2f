import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluationContextSchema, MAX_ID_LENGTH } from "../../src/flags/index.js";
import { FlagpostError } from "../../src/errors.js";
import { parseEvaluationContext } from "../../src/flags/evaluation/index.js";
import { parseInput } from "../../src/validation.js";

// parseEvaluationContext checks the common shape without zod: it must accept exactly what the
// schema accepts, give an equal value, and refuse with the same details and message.

function outcome(
  parse: () => unknown,
): { ok: true; value: unknown } | { ok: false; message: string; details: unknown } {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    if (!(error instanceof FlagpostError)) throw error;
    return { ok: false, message: error.message, details: error.details };
  }
}

const key = fc.constantFrom("userId", "attributes", "user", "__proto__", "constructor", "userid", "");
const leaf = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null), fc.double());
const userId = fc.oneof(
  fc.string({ minLength: 0, maxLength: 8 }),
  fc.constantFrom("", "u".repeat(MAX_ID_LENGTH), "u".repeat(MAX_ID_LENGTH + 1), "用户-7"),
  leaf,
  fc.array(fc.string(), { maxLength: 2 }),
);
const attributes = fc.oneof(
  fc.dictionary(
    fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom("__proto__", "plan", "toString")),
    fc.oneof(leaf, fc.array(leaf, { maxLength: 2 })),
    { maxKeys: 4 },
  ),
  leaf,
  fc.array(leaf, { maxLength: 2 }),
);
const context = fc.oneof(
  fc.record({ userId, attributes }, { requiredKeys: [] }),
  fc.dictionary(key, fc.oneof(userId, attributes), { maxKeys: 3 }),
  leaf,
  fc.array(leaf, { maxLength: 2 }),
);

describe("parseEvaluationContext", () => {
  it("agrees with evaluationContextSchema on parsed JSON", () => {
    fc.assert(
      fc.property(context, (value) => {
        // Through JSON, as a request body arrives ("__proto__" becomes an own property).
        const body: unknown = JSON.parse(JSON.stringify(value) ?? "null");
        expect(outcome(() => parseEvaluationContext(body))).toEqual(
          outcome(() => parseInput(evaluationContextSchema, body)),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses an attribute named __proto__ (no lookup could find it), as parseInput does", () => {
    const body = JSON.parse('{"userId":"u1","attributes":{"__proto__":{"plan":"pro"},"plan":"free"}}') as unknown;
    const refused = outcome(() => parseEvaluationContext(body));
    expect(refused).toMatchObject({ ok: false, details: [{ path: "attributes.__proto__" }] });
    expect(refused).toEqual(outcome(() => parseInput(evaluationContextSchema, body)));
  });

  it("returns a context of the common shape as given", () => {
    const body = { userId: "u1", attributes: { plan: "pro" } };
    expect(parseEvaluationContext(body)).toBe(body);
    expect(parseEvaluationContext({})).toEqual({});
  });
});
