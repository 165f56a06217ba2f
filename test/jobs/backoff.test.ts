import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  backoffCeiling,
  backoffDelay,
  checkBackoff,
  exponential,
  parseSchedule,
  retrying,
} from "../../src/jobs/backoff.js";
import { checkRetryPolicy, DEFAULT_RETRY_POLICY, retryDelay } from "../../src/jobs/retry-policy.js";

describe("backoff", () => {
  it("doubles from the first delay up to the cap, with equal jitter between half and all of it", () => {
    const b = exponential(1000, 60_000, "equal");
    expect(backoffDelay(b, 1, () => 0)).toBe(500);
    expect(backoffDelay(b, 1, () => 1)).toBe(1000);
    expect(backoffDelay(b, 4, () => 1)).toBe(8000);
    expect(backoffDelay(b, 40, () => 0)).toBe(30_000);
    expect(backoffDelay(b, 40, () => 1)).toBe(60_000);
  });

  it("draws full jitter from [0, ceiling] and waits the ceiling without jitter", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -3, max: 5000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const full = exponential(5, 1000);
          const delay = backoffDelay(full, attempt, () => r);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(backoffCeiling(full, attempt));
          expect(Number.isFinite(delay)).toBe(true);
          expect(backoffDelay(exponential(5, 1000, "none"), attempt, () => r)).toBe(backoffCeiling(full, attempt));
        },
      ),
    );
    expect([0, 1, 2, 3, 9, 10].map((n) => backoffCeiling(exponential(5, 1000), n))).toEqual([5, 5, 10, 20, 1000, 1000]);
  });

  it("reads explicit schedules and repeats the last delay", () => {
    const schedule = parseSchedule("5s, 5m,30m,2h,250ms,1d,0");
    expect(schedule).toEqual({
      kind: "schedule",
      delaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 250, 86_400_000, 0],
    });
    const webhooks = parseSchedule("5s,5m,30m,2h");
    expect([1, 2, 3, 4, 5, 50].map((n) => backoffDelay(webhooks, n, () => 0))).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 7_200_000, 7_200_000,
    ]);
    expect(parseSchedule("1.5s").delaysMs).toEqual([1500]);
  });

  it("spreads scheduled delays within ± the spread when one is given, never beyond", () => {
    const spread = { ...parseSchedule("10s,1m"), spread: 0.1 };
    expect(backoffDelay(spread, 1, () => 0)).toBeCloseTo(9_000);
    expect(backoffDelay(spread, 1, () => 0.5)).toBeCloseTo(10_000);
    expect(backoffDelay(spread, 2, () => 0.999999)).toBeCloseTo(66_000, 0);
    expect(backoffCeiling(spread, 2)).toBeCloseTo(66_000);
    expect(() => checkBackoff({ ...spread, spread: 1 }, "webhooks.retry")).toThrow(/spread/);
    const policy = { ...DEFAULT_RETRY_POLICY, schedule: [1000], scheduleSpread: 0.2 };
    expect([0, 1].map((r) => retryDelay(policy, 1, () => r))).toEqual([800, 1200]);
  });

  it("refuses schedules and bounds it cannot use, naming the option", () => {
    for (const bad of ["", "5x", "5s,,5m", "-1s", "s"])
      expect(() => parseSchedule(bad), bad).toThrow(expect.objectContaining({ code: "validation_error" }));
    expect(() => checkBackoff({ kind: "schedule", delaysMs: [] }, "webhooks.retry")).toThrow(/webhooks\.retry/);
    expect(() => checkBackoff(exponential(10, 5), "x")).toThrow(expect.objectContaining({ code: "validation_error" }));
    expect(() => checkBackoff(exponential(Number.NaN, 5), "x")).toThrow(
      expect.objectContaining({ code: "validation_error" }),
    );
    expect(() => checkBackoff(exponential(0, 5), "x")).not.toThrow();
  });

  it("gives a retry policy a schedule in place of the exponential delays", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, schedule: parseSchedule("5s,5m").delaysMs };
    expect([1, 2, 3].map((n) => retryDelay(policy, n, () => 0.5))).toEqual([5_000, 300_000, 300_000]);
    expect(retryDelay(DEFAULT_RETRY_POLICY, 2, () => 0.5)).toBe(5_000);
    expect(() => checkRetryPolicy({ ...DEFAULT_RETRY_POLICY, maxAttempts: 0 })).toThrow(/retry\.maxAttempts/);
    expect(() => checkRetryPolicy({ ...policy, schedule: [] })).toThrow(/retry\.schedule/);
  });
});

describe("retrying", () => {
  const backoff = exponential(1, 2, "none");
  const transient = new Error("transient");

  it("tries again while the error is one to retry, and answers the first success", async () => {
    let calls = 0;
    const answer = await retrying(
      async () => {
        calls += 1;
        if (calls < 3) throw transient;
        return "done";
      },
      { attempts: 5, backoff, retryOn: (error) => error === transient },
    );
    expect(answer).toBe("done");
    expect(calls).toBe(3);
  });

  it("throws the last error after the attempts, and any other error at once", async () => {
    let calls = 0;
    const always = () => {
      calls += 1;
      return Promise.reject(transient);
    };
    await expect(retrying(always, { attempts: 4, backoff, retryOn: () => true })).rejects.toBe(transient);
    expect(calls).toBe(4);
    calls = 0;
    const other = new Error("other");
    await expect(
      retrying(
        () => {
          calls += 1;
          return Promise.reject(other);
        },
        { attempts: 4, backoff, retryOn: (error) => error === transient },
      ),
    ).rejects.toBe(other);
    expect(calls).toBe(1);
  });
});
