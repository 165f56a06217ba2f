// The subset of jstat (which ships no types) that src/experiments/stats.ts uses.
declare module "jstat" {
  interface JStatStatic {
    /** Regularised incomplete beta function I_x(a, b). */
    ibeta(x: number, a: number, b: number): number;
    /** Regularised lower incomplete gamma function P(a, x). */
    lowRegGamma(a: number, x: number): number;
    studentt: { inv(p: number, dof: number): number };
    normal: { cdf(x: number, mean: number, std: number): number };
  }
  const jstat: { jStat: JStatStatic };
  export default jstat;
}
