import { MEASURES, type Measure } from "./compare-measures.js";
import { builtPackageEntry } from "./lib/built-package.js";
import { buildBefore, type Side, workingTree } from "./lib/compare-build.js";
import { NOISY_LOAD, oneMinuteLoad } from "./lib/load.js";
import { table } from "./lib/report.js";
import { fmt, median } from "./lib/stats.js";

/**
 * `npm run bench:compare -- <ref>`: is the working tree slower than where it left `<ref>`?
 * Builds the merge-base of HEAD and <ref> into a temporary directory (lib/compare-build.ts), then
 * in this one process run measures isEnabled, trackBatch, emails and HTTP evaluate (req/s and server CPU per request) on both,
 * before and after taking turns round by round (the order swapped every round), so a load spike
 * hits both. Prints a table per measure; writes nothing (bench/RESULTS.md is `npm run bench`'s).
 * `--only <name,…>` runs some measures (isEnabled, trackBatch, emails, "http evaluate", "http evaluate cpu").
 */

/** Longest a round may take before the compare gives up: rounds are bounded in count, this bounds them in time. */
const ROUND_TIMEOUT_MS = 90_000;

const log = (line: string) => process.stderr.write(`[compare] ${line}\n`);

function bounded<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ROUND_TIMEOUT_MS / 1000} s`)), ROUND_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Runs one measure on both sides; answers its section of the report. */
async function compare(measure: Measure, sides: [Side, Side]): Promise<string> {
  const loadStart = oneMinuteLoad();
  const started = performance.now();
  const { runners, close } = await measure.open(sides);
  const samples: number[][] = sides.map(() => []);
  try {
    for (let round = 1 - measure.warmups; round <= measure.rounds; round++) {
      // Before first on odd rounds, after first on even ones: neither side always runs warmer.
      const order = round % 2 === 0 ? [1, 0] : [0, 1];
      for (const i of order) {
        const value = await bounded(`${measure.name} ${sides[i]!.name} round`, runners[i]!.round());
        if (round >= 1) samples[i]!.push(value);
      }
      if (round >= 1)
        log(
          `${measure.name} round ${round}/${measure.rounds}: before ${fmt(samples[0]!.at(-1)!)}, after ${fmt(samples[1]!.at(-1)!)}`,
        );
    }
  } finally {
    await Promise.allSettled(runners.map((r) => r.close()));
    await close();
  }
  const loadEnd = oneMinuteLoad();
  const [before, after] = samples.map((s) => median(s)) as [number, number];
  const change = measure.higherIsBetter ? after / before : before / after;
  const digits = before < 1_000 ? 1 : 0;
  const rows = sides.map((side, i) => [
    side.name,
    side.label,
    fmt(median(samples[i]!), digits),
    `${fmt(Math.min(...samples[i]!), digits)} – ${fmt(Math.max(...samples[i]!), digits)}`,
  ]);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  return [
    `## ${measure.name} (${measure.unit}; ${measure.higherIsBetter ? "higher" : "lower"} is better)`,
    "",
    table(["side", "build", `median of ${measure.rounds} rounds`, "range"], rows),
    "",
    `- ratio after/before: **${(after / before).toFixed(3)}** (after is ${change >= 1 ? `${((change - 1) * 100).toFixed(1)}% faster` : `${((1 - change) * 100).toFixed(1)}% slower`} than before)`,
    `- 1-minute load ${loadStart.toFixed(2)} at start, ${loadEnd.toFixed(2)} at end${loadStart > NOISY_LOAD ? ` (**noisy**: above ${NOISY_LOAD} at the start)` : ""}; took ${seconds} s`,
    `- a round: ${measure.round}; ${measure.warmups} warm-up round per side first, then before and after alternate, the order swapped each round`,
    "",
  ].join("\n");
}

async function main(args: string[]): Promise<void> {
  const onlyAt = args.indexOf("--only");
  const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? "").split(",") : undefined;
  const refs = args.filter((arg, i) => !arg.startsWith("--") && (onlyAt < 0 || i !== onlyAt + 1));
  if (refs.length !== 1)
    throw new Error(
      "usage: npm run bench:compare -- <ref> [--only isEnabled,trackBatch,emails,http evaluate,http evaluate cpu]",
    );
  const measures = only === undefined ? MEASURES : MEASURES.filter((m) => only.includes(m.name));
  if (measures.length === 0) throw new Error(`--only names none of: ${MEASURES.map((m) => m.name).join(", ")}`);
  const after = workingTree();
  log(`after: ${after.label}, flagpost loaded from ${builtPackageEntry()}`);
  const buildStarted = performance.now();
  const before = buildBefore(refs[0]!, log);
  log(`built in ${((performance.now() - buildStarted) / 1000).toFixed(0)} s`);
  try {
    const loadStart = oneMinuteLoad();
    const sections: string[] = [];
    for (const measure of measures) {
      log(`${measure.name}: 1-minute load ${oneMinuteLoad().toFixed(2)}`);
      sections.push(await compare(measure, [before, after]));
    }
    process.stdout.write(
      `# bench:compare\n\nbefore: ${before.label}\nafter: ${after.label}\n1-minute load ${loadStart.toFixed(2)} at start, ${oneMinuteLoad().toFixed(2)} at end.\n\n${sections.join("\n")}`,
    );
  } finally {
    before.cleanup();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
