import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inputProblem, MAX_NESTING_DEPTH } from "../../src/input-policy.js";

/** The rules of src/input-policy.ts written as plainly as possible: the oracle for its two walks. */
function breaksARule(value: unknown, depth = 0): boolean {
  const badText = (text: string) =>
    text.includes("\u0000") || /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
  if (typeof value === "string") return badText(value);
  if (typeof value === "number") return !Number.isFinite(value);
  if (typeof value !== "object" || value === null) return false;
  if (depth >= MAX_NESTING_DEPTH) return true;
  if (Array.isArray(value)) return value.some((item) => breaksARule(item, depth + 1));
  return Object.entries(value).some(
    ([key, item]) => key === "__proto__" || badText(key) || breaksARule(item, depth + 1),
  );
}

const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udc00", "\ud83d\ude00", "__proto__"),
);
const scalar = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null));
const tree = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, scalar, tie("array"), tie("object")),
  array: fc.array(tie("node"), { maxLength: 4 }),
  object: fc.dictionary(text, tie("node"), { maxKeys: 4 }),
})).node;

/** An array nested `levels` deep around `inner`. */
const nested = (levels: number, inner: unknown) => {
  let value = inner;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

describe("inputProblem", () => {
  it("finds a problem exactly when a rule is broken", () => {
    fc.assert(
      fc.property(tree, (value) => {
        expect(inputProblem(value) !== undefined).toBe(breaksARule(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it("counts nesting to the limit and names the key that breaks a rule", () => {
    expect(inputProblem(nested(MAX_NESTING_DEPTH, 1))).toBeUndefined();
    expect(inputProblem(nested(MAX_NESTING_DEPTH + 1, 1))?.message).toMatch(/nested more than 64/);
    expect(inputProblem(nested(6000, 1))?.message).toMatch(/nested more than 64/);
    const withProto = JSON.parse('{"a":{"__proto__":1}}') as unknown;
    expect(inputProblem(withProto, ["properties"])?.path).toBe("properties.a.__proto__");
    expect(inputProblem({ a: [1, "x\u0000"] })).toEqual({
      path: "a.1",
      message: "must not contain the NUL character (U+0000)",
    });
  });
});
