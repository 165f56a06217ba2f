import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The long crash, several-processes and memory suites run alone: npm run test:reliability.
    exclude: [...configDefaults.exclude, "test/reliability-long/**"],
    // Two cores: more workers only add contention on the shared databases.
    maxWorkers: 2,
    // A budget, not an assertion: CLI and example tests spawn tsx, which takes seconds on a busy 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
