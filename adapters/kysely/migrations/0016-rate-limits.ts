import type { Migration } from "kysely";
import { columnTypes, detectEngine, type AnyKysely } from "../dialect.js";
import { engineTraits } from "../engines/index.js";
import { createTableIfAbsent } from "./schema-steps.js";

/** The table postgresRateLimitStore counts in; its columns are rate-limiter-flexible's. */
export const RATE_LIMIT_TABLE = "flagpost_rate_limits";

/**
 * PostgreSQL only (a no-op elsewhere): the shared rate limit's counters, one row per limited id
 * and window (`key`), with the requests counted (`points`) and the window's end in epoch
 * milliseconds (`expire`). rate-limiter-flexible would create this table itself on first use;
 * creating it here keeps every flagpost table in the migrations and lets it start with
 * `tableCreated: true`.
 */
export const rateLimitsMigration: Migration = {
  async up(db: AnyKysely): Promise<void> {
    const engine = detectEngine(db);
    if (!engineTraits(engine).sharedRateLimits) return;
    await createTableIfAbsent(db, engine, RATE_LIMIT_TABLE)
      // Byte-wise like every other identifier column (the ids it counts are keys' hashes and addresses).
      .addColumn("key", columnTypes(engine).exactText(255), (c) => c.primaryKey())
      .addColumn("points", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("expire", "bigint")
      .execute();
  },
};
