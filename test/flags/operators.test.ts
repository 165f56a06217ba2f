import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { operatorTableScript } from "../../adapters/http/dashboard/operator-table.js";
import { ATTRIBUTE_OPERATORS, type OperatorDefinition, OPERATORS } from "../../src/flags/evaluation/operators.js";
import { startApp } from "../support/servers.js";

// One operator table (src/flags/evaluation/operators.ts) read by the schema, evaluate(), the compiled client
// and the dashboard. The evaluators' agreement is the shared fixtures' job (evaluators.test.ts);
// this file holds the table to its other readers.

const PUBLIC = new URL("../../adapters/http/dashboard/public/", import.meta.url);

describe("the operator table", () => {
  it("is what the dashboard's operator-table.js on disk holds (regenerate it from operatorTableScript())", () => {
    expect(readFileSync(new URL("operator-table.js", PUBLIC), "utf8")).toBe(operatorTableScript());
  });

  it("gives the editor every operator with the table's kinds and list flag, each with a label", async () => {
    const { OPERATORS: editor } = (await import(new URL("operators.js", PUBLIC).href)) as {
      OPERATORS: { op: string; label: string; kinds: string[]; list?: boolean }[];
    };
    expect(editor.map((o) => o.op)).toEqual([...ATTRIBUTE_OPERATORS]);
    for (const o of editor) {
      const definition = OPERATORS[o.op as keyof typeof OPERATORS];
      expect(o.kinds).toEqual(definition.kinds);
      expect(o.list === true).toBe(definition.list);
      expect(o.label).toMatch(/^[a-z]/);
    }
  });

  it("is served to the dashboard from the table itself", async () => {
    const app = await startApp();
    try {
      const response = await fetch(`${app.url}/dashboard/operator-table.js`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(await response.text()).toBe(operatorTableScript());
    } finally {
      await app.close();
    }
  });

  it("validates a value by the operator's kind and list flag", () => {
    expect(OPERATORS.in.validate("pro")).toBe('must be an array for operator "in"');
    expect(OPERATORS.equals.validate(["pro"])).toMatch(/must not be an array/);
    expect(OPERATORS.contains.validate(3)).toBe('must be a string for operator "contains"');
    expect(OPERATORS.gt.validate("yesterday")).toMatch(/number or an ISO 8601 date/);
    expect(OPERATORS.gt.validate("2026-01-01T00:00:00Z")).toBeUndefined();
    expect(OPERATORS.semver_gt.validate("1.2")).toMatch(/semantic version/);
    // A value of the operator's first kind passes.
    const samples = { string: "a", number: 5, boolean: true, date: "2026-01-01", version: "1.2.3", json: "a" };
    for (const op of ATTRIBUTE_OPERATORS) {
      const definition: OperatorDefinition = OPERATORS[op];
      const sample = samples[definition.kinds[0]!];
      expect(definition.validate(definition.list ? [sample] : sample)).toBeUndefined();
    }
  });

  it("compiles a value of the wrong kind into a matcher that never matches (stored data is not re-validated)", () => {
    for (const [op, value] of [
      ["equals", ["a"]],
      ["in", "a"],
      ["contains", 1],
      ["gt", true],
      ["gt", "not a date"],
      ["semver_eq", "1.2"],
    ] as const) {
      const { match, arg } = OPERATORS[op].compile(value as never);
      for (const actual of ["a", 1, true, "1.2", "2026-01-01"]) expect(match(actual, arg as never)).toBe(false);
    }
    const present = OPERATORS.not_equals.compile(["a"]);
    expect(present.match("a", present.arg as never)).toBe(true);
  });
});
