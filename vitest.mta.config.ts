import { defineConfig } from "vitest/config";

/**
 * `npm run test:mta`: flagpost serve driven through a real Postfix on loopback (test/mta), on
 * SQLite and on PostgreSQL (two files, side by side). It needs root (Postfix's master starts as root)
 * and Postfix itself, which `pretest:mta` installs when missing (.ci/ensure-postfix), and the
 * built dist/cli.js (also built by `pretest:mta`). About 3½ minutes.
 */
export default defineConfig({
  test: {
    include: ["test/mta/**/*.test.ts"],
    // SQLite and PostgreSQL side by side, each with its own Postfix instance and ports: the runs
    // mostly wait on Postfix's queue lifetime, so two at once halve the wall time.
    maxWorkers: 2,
    // Budgets for a stuck run, not assertions: every scenario states and checks its own bound.
    testTimeout: 240_000,
    hookTimeout: 120_000,
  },
});
