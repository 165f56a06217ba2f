import { describe, expect, it } from "vitest";
import { PARTS } from "../bench/parts.js";

// Each benchmark part runs on tiny sizes so it cannot rot; its numbers are not looked at here.
describe("benchmark parts (smoke run)", () => {
  it("has a unique name per part", () => {
    expect(new Set(PARTS.map((p) => p.name)).size).toBe(PARTS.length);
  });
  it.each(PARTS.map((p) => [p.name, p] as const))(
    "%s runs and reports a table",
    async (_name, part) => {
      const markdown = await part.run({ smoke: true, log: () => undefined });
      expect(markdown).toMatch(/^\|.+\|$/m);
    },
    120_000,
  );
});
