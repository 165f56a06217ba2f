import { describe, expect, it } from "vitest";
import { flagChanges } from "../../src/flags/store/history-diff.js";

const base = {
  id: "i",
  key: "k",
  description: "d",
  enabled: false,
  rules: [
    { type: "users", userIds: ["a", "b"] },
    { type: "percentage", percentage: 10 },
  ],
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

describe("flagChanges", () => {
  it("lists every compared field with before null on create and after null on delete", () => {
    expect(flagChanges(undefined, base).map((c) => [c.path, c.before])).toEqual([
      ["description", null],
      ["enabled", null],
      ["rules", null],
    ]);
    expect(flagChanges(base, undefined).every((c) => c.after === null)).toBe(true);
  });

  it("ignores updatedAt, id, key and createdAt, and gives nothing for equal flags", () => {
    expect(
      flagChanges(base, { ...base, updatedAt: "2027-01-01T00:00:00.000Z", id: "j", key: "other", createdAt: "x" }),
    ).toEqual([]);
    expect(flagChanges(base, structuredClone(base))).toEqual([]);
  });

  it("goes into rules item by item, and treats a list of plain values as one value", () => {
    const after = structuredClone(base);
    after.rules[0] = { type: "users", userIds: ["z", "a", "b"] };
    after.rules[1] = { type: "percentage", percentage: 50 };
    expect(flagChanges(base, after)).toEqual([
      { path: "rules.0.userIds", before: ["a", "b"], after: ["z", "a", "b"] },
      { path: "rules.1.percentage", before: 10, after: 50 },
    ]);
  });

  it("reports added and removed rules with null on the missing side, and a changed rule type field by field", () => {
    const after = { ...base, rules: [{ type: "attribute", attribute: "plan", operator: "equals", value: "pro" }] };
    expect(flagChanges(base, after)).toEqual([
      { path: "rules.0.type", before: "users", after: "attribute" },
      { path: "rules.0.userIds", before: ["a", "b"], after: null },
      { path: "rules.0.attribute", before: null, after: "plan" },
      { path: "rules.0.operator", before: null, after: "equals" },
      { path: "rules.0.value", before: null, after: "pro" },
      { path: "rules.1", before: { type: "percentage", percentage: 10 }, after: null },
    ]);
  });

  it("changes an emptied list as a whole", () => {
    expect(flagChanges(base, { ...base, rules: [] })).toEqual([{ path: "rules", before: base.rules, after: [] }]);
  });

  it("tells a value of one type from the same text of another", () => {
    expect(flagChanges({ ...base, value: 1 }, { ...base, value: "1" })).toEqual([
      { path: "value", before: 1, after: "1" },
    ]);
  });
});
