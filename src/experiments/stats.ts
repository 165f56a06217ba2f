// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- jstat ships no types; a program that includes stats.ts alone (the README snippet check) must see ours
/// <reference path="./jstat.d.ts" />
import jstat from "jstat";

/**
 * The statistics of docs/experiments.md, as small pure functions over per-group sums. Welch's
 * t-test is `scipy.stats.ttest_ind(equal_var=False)`; the chi-square test is
 * `scipy.stats.chisquare`. jstat supplies the t, normal and chi-square distributions (its
 * incomplete beta and gamma functions agree with scipy to about 1e-7 relative). Every formula is
 * written out in docs/experiments.md, with what each function answers when a group is too small.
 */

const { jStat } = jstat;

/** One per-user measure of one group, as the database sums it. */
export interface Sums {
  /** Users in the group. */
  n: number;
  /** Σ x over the group's users. */
  sum: number;
  /** Σ x² over the group's users. */
  sumSquares: number;
}

export interface Moments {
  n: number;
  mean: number;
  /** Sample variance (n − 1 in the denominator); 0 when n < 2. */
  variance: number;
}

export function moments({ n, sum, sumSquares }: Sums): Moments {
  if (n === 0) return { n, mean: 0, variance: 0 };
  const mean = sum / n;
  // Σx² − n·mean², floored at 0 against rounding when every value is the same.
  const variance = n < 2 ? 0 : Math.max(0, (sumSquares - sum * mean) / (n - 1));
  return { n, mean, variance };
}

export interface Comparison {
  /** Treatment mean − control mean. */
  difference: number;
  /** 95 % Welch–Satterthwaite t interval of the difference; null when a group has fewer than 2 users. */
  differenceCI95: [number, number] | null;
  /** difference / control mean; null when the control mean is 0. */
  relativeUplift: number | null;
  /** Welch's two-sided t-test; null when a group has fewer than 2 users. */
  pValue: number | null;
  /** Φ(difference / √(s²/n + s_c²/n_c)); null when a group has fewer than 2 users. */
  chanceToBeatControl: number | null;
}

/** Welch–Satterthwaite degrees of freedom for the two groups' variance-of-mean terms. */
export function welchDegreesOfFreedom(a: Moments, b: Moments): number {
  const va = a.variance / a.n;
  const vb = b.variance / b.n;
  return (va + vb) ** 2 / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
}

/** Two-sided p-value of Student's t with `df` degrees of freedom: I_{df/(df+t²)}(df/2, 1/2), exact in the far tail too. */
export function twoSidedTPValue(t: number, df: number): number {
  return jStat.ibeta(df / (df + t * t), df / 2, 0.5);
}

/** The treatment group against the control group, both summarised by `moments`. Null when either group is empty. */
export function compare(treatment: Moments, control: Moments): Comparison | null {
  if (treatment.n === 0 || control.n === 0) return null;
  const difference = treatment.mean - control.mean;
  const relativeUplift = control.mean === 0 ? null : difference / control.mean;
  if (treatment.n < 2 || control.n < 2)
    return { difference, differenceCI95: null, relativeUplift, pValue: null, chanceToBeatControl: null };
  const se = Math.sqrt(treatment.variance / treatment.n + control.variance / control.n);
  if (se === 0) {
    // No spread in either group (everyone converted, or no one): the difference is certain.
    // scipy answers NaN here; a certain difference of 0 is "no evidence", any other is decisive.
    return {
      difference,
      differenceCI95: [difference, difference],
      relativeUplift,
      pValue: difference === 0 ? 1 : 0,
      chanceToBeatControl: difference === 0 ? 0.5 : difference > 0 ? 1 : 0,
    };
  }
  const df = welchDegreesOfFreedom(treatment, control);
  if (!(df > 0)) return { difference, differenceCI95: null, relativeUplift, pValue: null, chanceToBeatControl: null }; // variances too small to represent
  const margin = jStat.studentt.inv(0.975, df) * se;
  return {
    difference,
    differenceCI95: [difference - margin, difference + margin],
    relativeUplift,
    pValue: Math.min(1, twoSidedTPValue(difference / se, df)),
    chanceToBeatControl: jStat.normal.cdf(difference / se, 0, 1),
  };
}

export interface SrmResult {
  /** Pearson's chi-square statistic of users per variant against the expected split. */
  chiSquare: number;
  degreesOfFreedom: number;
  /** Null when fewer than two variants with weight > 0 exist, or no user was assigned. */
  pValue: number | null;
  /** pValue < 0.001. */
  detected: boolean;
}

export const SRM_THRESHOLD = 0.001;

/**
 * Sample ratio mismatch: chi-square goodness of fit of `observed` users against `weights` (any
 * positive scale). Groups of weight 0 are left out (no user is expected there, and any user there
 * would make the statistic infinite), so df = (groups of positive weight) − 1.
 */
export function sampleRatioMismatch(observed: readonly number[], weights: readonly number[]): SrmResult {
  const groups: [number, number][] = [];
  observed.forEach((count, i) => {
    const weight = weights[i] ?? 0;
    if (weight > 0) groups.push([count, weight]);
  });
  const total = groups.reduce((sum, [count]) => sum + count, 0);
  const weightSum = groups.reduce((sum, [, weight]) => sum + weight, 0);
  const degreesOfFreedom = groups.length - 1;
  if (degreesOfFreedom < 1 || total === 0)
    return { chiSquare: 0, degreesOfFreedom: Math.max(0, degreesOfFreedom), pValue: null, detected: false };
  let chiSquare = 0;
  for (const [count, weight] of groups) {
    const expected = (total * weight) / weightSum;
    chiSquare += (count - expected) ** 2 / expected;
  }
  const pValue = Math.max(0, 1 - jStat.lowRegGamma(degreesOfFreedom / 2, chiSquare / 2));
  return { chiSquare, degreesOfFreedom, pValue, detected: pValue < SRM_THRESHOLD };
}
