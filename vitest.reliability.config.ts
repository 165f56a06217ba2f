import { defineConfig } from "vitest/config";

/**
 * `npm run test:reliability`: the crash, several-processes and memory suites of issue 11, and
 * issue 24's large-email intake (about 50 s, too long for `npm test`). Each drives `flagpost serve`
 * child processes hard, so the files run one after another, never beside each other or beside
 * `npm test`. Bounded to about 11 minutes on 2 cores.
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
