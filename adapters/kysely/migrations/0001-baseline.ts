import type { Migration } from "kysely";
import type { AnyKysely } from "../dialect.js";
import { LEGACY_STEPS } from "./legacy-history.js";

/**
 * The whole schema as of issue 26: one migration in place of the history 0001-initial …
 * 0018-report-policy, which features had landed out of order. It replays those steps, in the order
 * a fresh database ran them, so a database it creates is the one the old history created (every
 * step is safe to run again, which also covers a run cut short on MySQL, where DDL is not rolled
 * back). Databases that ran the old history are adopted by `adoptLegacyHistory`.
 */
export const baselineMigration: Migration = {
  async up(db: AnyKysely): Promise<void> {
    for (const step of Object.values(LEGACY_STEPS)) await step.up(db);
  },
};
