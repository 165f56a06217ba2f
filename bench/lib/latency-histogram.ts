const BUCKET_MS = 0.01;
const BUCKETS = 200_000; // up to 2 s; slower answers land in the last bucket

/**
 * Answer times of a load run in 10 µs buckets: recording costs an increment, so the load
 * generator's own cost per answer stays flat however many answers a run takes.
 */
export class LatencyHistogram {
  readonly #counts = new Uint32Array(BUCKETS);
  #total = 0;

  record(ms: number): void {
    this.#counts[Math.min(BUCKETS - 1, Math.floor(ms / BUCKET_MS))]!++;
    this.#total += 1;
  }

  /** The time below which a share `q` of the recorded answers came, ms (NaN with none). */
  quantile(q: number): number {
    const rank = Math.max(1, Math.ceil(q * this.#total));
    let seen = 0;
    for (let i = 0; i < this.#counts.length; i++) {
      seen += this.#counts[i]!;
      if (seen >= rank) return (i + 1) * BUCKET_MS;
    }
    return Number.NaN;
  }
}
