import { defineConfig } from "vitest/config";

/**
 * `npm run test:reliability`: the crash, several-processes and memory suites of issue 11, issue
 * 24's large-email intake (about 50 s, too long for `npm test`) and the heavy-reads latency bounds
 * (a p99 taken beside other test files on 2 cores measures those files, not flagpost). Each drives
 * `flagpost serve` or a server hard, so the files run one after another, never beside each other or
 * beside `npm test`. Bounded to about 12 minutes on 2 cores.
 */
export default defineConfig({
  test: {
    include: ["test/reliability-long/**/*.test.ts"],
    fileParallelism: false,
    maxWorkers: 1,
    // Budgets for a stuck run, not speed assertions: the bounds each suite asserts are its own.
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
