import { existsSync } from "node:fs";
import { relative } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that run longest, in the order they start. Without a cache of durations (a clean
 * clone: CI) vitest starts larger files first, and the one-line files that run the whole storage
 * conformance suite on a server, or every benchmark part, came last: the run then ended with one
 * worker on a file of a minute or more while the other had nothing left. Seconds measured in
 * runs of a few files at a 1-minute load of 11-30 on 2 cores (about 3-5 times CI's), beside each.
 */
const LONG_FILES: readonly string[] = [
  "test/docs/walkthroughs-run.test.ts", // 305
  "test/docs/readme-install.test.ts", // 300
  "test/docs/readme-run.test.ts", // 266
  "test/conformance/postgres.test.ts", // 233
  "test/docs/snippets-typecheck.test.ts", // README's and clients-node.md's blocks: 180 and 114 when apart
  "test/bench-smoke.test.ts", // half of 290-365
  "test/bench-smoke-odd.test.ts", // the other half
  "test/conformance/mysql.test.ts", // 121
  "test/cli/cli.test.ts", // 116
  "test/docs/examples.test.ts", // 113
  "test/cli/experiments.test.ts", // 107
  "test/cli/startup-errors.test.ts", // 63
  // Not long: it reuses the tarball readme-install.test.ts packs (test/support/pack-once.ts), so it
  // starts once that pack is long done instead of waiting for it with a worker idle.
  "test/package/pack.test.ts",
];
// A file renamed or removed would silently lose its place: say so instead.
for (const file of LONG_FILES)
  if (!existsSync(new URL(file, import.meta.url))) throw new Error(`vitest.config.ts LONG_FILES: no ${file}`);

/** LONG_FILES first, in their order; every other file after them, in vitest's own order. */
class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONG_FILES.indexOf(relative(this.ctx.config.root, file.moduleId));
      return index === -1 ? LONG_FILES.length : index;
    };
    // A stable sort: the files not listed keep vitest's order among themselves.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  // "flagpost" and "flagpost/…" resolve as tsc and tsx resolve them, through tsconfig.json `paths`
  // to the sources: the benchmarks import flagpost by its package names (npm run bench runs them on
  // dist/), and their smoke test runs them on the working tree like every other test. dist/ is
  // checked by test/package, whose npm pack rebuilds it while other files run.
  resolve: { tsconfigPaths: true },
  test: {
    include: ["test/**/*.test.ts"],
    // The long crash, several-processes and memory suites run alone: npm run test:reliability;
    // the real-MTA suite needs root and its own Postfix: npm run test:mta.
    exclude: [...configDefaults.exclude, "test/reliability-long/**", "test/mta/**"],
    // Two cores: more workers only add contention on the shared databases.
    maxWorkers: 2,
    sequence: { sequencer: LongFilesFirst },
    // One directory per run for the one `npm pack` the tarball tests share (test/support/pack-once.ts).
    globalSetup: ["test/support/pack-once-setup.ts"],
    // A budget, not an assertion: CLI and example tests spawn tsx, which takes seconds on a busy 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
