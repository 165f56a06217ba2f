// How experiment numbers are written on the page (the same as `flagpost experiments results`):
// rates as percentages, differences of rates in percentage points, money with two decimals.

export const percent = (fraction) => `${(fraction * 100).toFixed(2)}%`;
export const signed = (n, digits) => `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(digits)}`;
/** A difference of two rates, in percentage points. */
export const points = (fraction) => `${signed(fraction * 100, 2)} pp`;
export const money = (n) => n.toFixed(2);
export const signedMoney = (n) => signed(n, 2);
/** Below 1e-15 a double no longer resolves the tail (1 − CDF): written as a bound, not as 0. */
export const pValue = (p) => (p < 1e-15 ? "< 1e-15" : p < 0.0001 ? p.toExponential(2) : p.toFixed(4));
/** "p = 0.0123" or "p < 1e-15", for a sentence. */
export const pEquals = (p) => (p < 1e-15 ? `p ${pValue(p)}` : `p = ${pValue(p)}`);
