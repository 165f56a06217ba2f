/** Small numeric helpers of the long suites: a seeded generator and percentiles. */

/** mulberry32: a seeded generator of numbers in [0, 1), so a failing run can be replayed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this run: FLAGPOST_RELIABILITY_SEED, or a fixed default so CI runs repeat. */
export function runSeed(): number {
  const raw = process.env.FLAGPOST_RELIABILITY_SEED;
  return raw === undefined || raw === "" ? 20_261_123 : Number(raw);
}

/**
 * How much of the full load to run: FLAGPOST_RELIABILITY_SCALE (default 1; e.g. 0.05 while
 * developing). Counts are scaled; the number of kills and the bounds are not.
 */
export function scaled(count: number): number {
  const raw = process.env.FLAGPOST_RELIABILITY_SCALE;
  const scale = raw === undefined || raw === "" ? 1 : Number(raw);
  return Math.max(1, Math.round(count * scale));
}

/** The value below which `p` percent of `values` fall (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Shuffles in place with `random`. */
export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
