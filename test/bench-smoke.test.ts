import { describe, expect, it } from "vitest";
import { PARTS } from "../bench/parts.js";
import { describeSmokeRuns } from "./support/bench-smoke.js";

describe("benchmark parts", () => {
  it("has a unique name per part", () => {
    expect(new Set(PARTS.map((p) => p.name)).size).toBe(PARTS.length);
  });
});

describeSmokeRuns(0);
