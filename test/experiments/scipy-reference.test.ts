import { afterAll, expect, it } from "vitest";
import { flagWrites } from "../../src/flags/store/index.js";
import { createFlagpost } from "../../src/flagpost.js";
import type { ExperimentResults } from "../../src/experiments/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { datasets, eventsOf } from "./datasets.js";

// Results on every storage against the numbers scipy computed (test/experiments/generate.py):
// the database sums, the statistics in JavaScript, and scipy must agree to 1e-6 relative.

const RELATIVE = 1e-6;
let largest = { deviation: 0, where: "" };

function close(actual: number | null | undefined, expected: number, where: string, scale = Math.abs(expected)): void {
  expect(actual, where).toBeTypeOf("number");
  const deviation = Math.abs(actual! - expected) / (scale || 1);
  if (deviation > largest.deviation) largest = { deviation, where };
  expect(deviation, `${where}: ${actual} vs scipy ${expected}`).toBeLessThanOrEqual(RELATIVE);
}

function compareResults(
  actual: ExperimentResults,
  expected: (typeof datasets)[number]["expected"],
  label: string,
): void {
  expect(actual.control).toBe(expected.control);
  expect(actual.excludedUsers).toBe(expected.excludedUsers);
  expect(actual.variants.map((v) => [v.key, v.weight, v.users, v.conversions])).toEqual(
    expected.variants.map((v) => [v.key, v.weight, v.users, v.conversions]),
  );
  actual.variants.forEach((variant, i) => {
    const want = expected.variants[i]!;
    const at = `${label} ${variant.key}`;
    close(variant.conversionRate, want.conversionRate!, `${at} conversionRate`);
    close(variant.revenue, want.revenue, `${at} revenue`);
    close(variant.revenuePerUser, want.revenuePerUser!, `${at} revenuePerUser`);
    if (want.vsControl === null) {
      expect(variant.vsControl).toBeNull();
      return;
    }
    for (const measure of ["conversionRate", "revenuePerUser"] as const) {
      const got = variant.vsControl![measure]!;
      const ref = want.vsControl[measure]!;
      const m = `${at} ${measure}`;
      close(got.difference, ref.difference, `${m} difference`);
      close(got.relativeUplift, ref.relativeUplift!, `${m} relativeUplift`);
      close(got.pValue, ref.pValue!, `${m} pValue`);
      close(got.chanceToBeatControl, ref.chanceToBeatControl!, `${m} chanceToBeatControl`);
      // An interval bound near 0 is a difference of two close numbers: its error is measured
      // against the half-width (the part that comes from the t quantile and the standard error).
      const halfWidth = (ref.differenceCI95![1] - ref.differenceCI95![0]) / 2;
      close(
        got.differenceCI95![0],
        ref.differenceCI95![0],
        `${m} CI low`,
        Math.max(Math.abs(ref.differenceCI95![0]), halfWidth),
      );
      close(
        got.differenceCI95![1],
        ref.differenceCI95![1],
        `${m} CI high`,
        Math.max(Math.abs(ref.differenceCI95![1]), halfWidth),
      );
    }
  });
  close(actual.srm.chiSquare, expected.srm.chiSquare, `${label} srm chiSquare`);
  close(actual.srm.pValue, expected.srm.pValue!, `${label} srm pValue`);
  expect(actual.srm.degreesOfFreedom).toBe(expected.srm.degreesOfFreedom);
  expect(actual.srm.detected).toBe(expected.srm.detected);
}

describeEachStorage("experiment results against scipy", (storage, backend) => {
  it.each(datasets.map((d) => [d.name, d] as const))("%s", { timeout: 90_000 }, async (_name, dataset) => {
    const fp = createFlagpost({ storage: storage(), logger: silentLogger });
    await flagWrites(fp.storage).insert({
      id: "01920000-0000-7000-8000-000000000000",
      key: dataset.experimentId,
      description: "",
      enabled: true,
      rules: [],
      variants: dataset.flagVariants,
      prerequisites: [],
      createdAt: Date.parse("2026-06-01T00:00:00.000Z"),
      updatedAt: Date.parse("2026-06-01T00:00:00.000Z"),
    });
    await fp.storage.events.appendEvents(eventsOf(dataset));
    const results = await fp.experiments.results(dataset.experimentId, { metric: dataset.metric });
    compareResults(results, dataset.expected, `${backend} ${dataset.name}`);
  });
});

afterAll(() => {
  // The figure quoted in docs/experiments.md; printed so a run shows it.
  console.log(`largest relative deviation from scipy: ${largest.deviation.toExponential(2)} (${largest.where})`);
});
