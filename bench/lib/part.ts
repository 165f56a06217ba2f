/**
 * One benchmark part (flags, http, events, emails). `run` measures flagpost beside its floors and
 * peers in the same process run and returns Markdown (tables of medians and ratios, never a lone
 * absolute time). With `smoke: true` it must finish in seconds on tiny sizes: `npm test` runs
 * every part that way so the benchmarks cannot rot; the numbers are then meaningless.
 */
export interface BenchPart {
  name: string;
  title: string;
  run(options: { smoke: boolean; log: (line: string) => void }): Promise<string>;
}
