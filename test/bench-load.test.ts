import { describe, expect, it } from "vitest";
import { NOISY_LOAD, loadLine } from "../bench/lib/load.js";

// RESULTS.md must say when a part started on a busy machine: its ratios then mean little.
describe("the benchmark runner's load line", () => {
  it("marks a part noisy when the load at its start was above the bound", () => {
    expect(loadLine(NOISY_LOAD + 0.01, 0.5)).toContain("**noisy**");
    expect(loadLine(NOISY_LOAD + 0.01, 0.5)).toContain(`${(NOISY_LOAD + 0.01).toFixed(2)} before`);
  });
  it("does not mark a quiet start, whatever the load after", () => {
    const line = loadLine(NOISY_LOAD, 3.2);
    expect(line).not.toContain("noisy");
    expect(line).toContain("3.20 after");
  });
});
