import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compare, moments, sampleRatioMismatch } from "../../src/experiments/index.js";

// Amounts in cents, as revenue is; and 0/1 conversions.
const sample = fc.oneof(
  fc.array(
    fc.integer({ min: 0, max: 100_000 }).map((c) => c / 100),
    { minLength: 2, maxLength: 60 },
  ),
  fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 2, maxLength: 60 }),
);
const sums = (xs: number[]) =>
  moments({ n: xs.length, sum: xs.reduce((a, b) => a + b, 0), sumSquares: xs.reduce((a, b) => a + b * b, 0) });

describe("Welch comparison properties", () => {
  it("a variant compared with itself: difference 0, pValue 1, chance 0.5, interval around 0", () => {
    fc.assert(
      fc.property(sample, (xs) => {
        const m = sums(xs);
        const result = compare(m, m)!;
        expect(result.difference).toBe(0);
        expect(result.pValue).toBe(1);
        expect(result.chanceToBeatControl).toBe(0.5);
        expect(result.differenceCI95![0]).toBeLessThanOrEqual(0);
        expect(result.differenceCI95![1]).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  it("swapping control and treatment flips the sign, keeps the p-value, mirrors the interval and the chance", () => {
    fc.assert(
      fc.property(sample, sample, (a, b) => {
        const ab = compare(sums(a), sums(b))!;
        const ba = compare(sums(b), sums(a))!;
        expect(ba.difference).toBeCloseTo(-ab.difference, 9);
        expect(ba.pValue!).toBeCloseTo(ab.pValue!, 12);
        expect(ba.chanceToBeatControl!).toBeCloseTo(1 - ab.chanceToBeatControl!, 12);
        expect(ba.differenceCI95![0]).toBeCloseTo(-ab.differenceCI95![1], 9);
        expect(ba.differenceCI95![1]).toBeCloseTo(-ab.differenceCI95![0], 9);
      }),
      { numRuns: 300 },
    );
  });

  it("answers what it can for tiny or constant groups", () => {
    const one = moments({ n: 1, sum: 1, sumSquares: 1 });
    const none = moments({ n: 0, sum: 0, sumSquares: 0 });
    const allZero = moments({ n: 10, sum: 0, sumSquares: 0 });
    const allOne = moments({ n: 10, sum: 10, sumSquares: 10 });
    expect(compare(none, allZero)).toBeNull();
    expect(compare(one, allZero)).toEqual({
      difference: 1,
      differenceCI95: null,
      relativeUplift: null,
      pValue: null,
      chanceToBeatControl: null,
    });
    expect(compare(allZero, allZero)).toEqual({
      difference: 0,
      differenceCI95: [0, 0],
      relativeUplift: null,
      pValue: 1,
      chanceToBeatControl: 0.5,
    });
    expect(compare(allOne, allZero)).toMatchObject({ difference: 1, pValue: 0, chanceToBeatControl: 1 });
  });
});

describe("sample ratio mismatch", () => {
  it("is 0 for an exact split, leaves weight-0 groups out, and needs two groups", () => {
    expect(sampleRatioMismatch([500, 300, 200], [50, 30, 20])).toEqual({
      chiSquare: 0,
      degreesOfFreedom: 2,
      pValue: 1,
      detected: false,
    });
    expect(sampleRatioMismatch([500, 500, 9], [50, 50, 0])).toMatchObject({
      chiSquare: 0,
      degreesOfFreedom: 1,
      pValue: 1,
    });
    expect(sampleRatioMismatch([10], [100])).toMatchObject({ pValue: null, detected: false });
    expect(sampleRatioMismatch([0, 0], [50, 50])).toMatchObject({ pValue: null, detected: false });
    expect(sampleRatioMismatch([600, 400], [50, 50]).detected).toBe(true);
  });
});
