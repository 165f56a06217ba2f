import { configDefaults, defineConfig } from "vitest/config";

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
    // A budget, not an assertion: CLI and example tests spawn tsx, which takes seconds on a busy 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
