import { engineTraits } from "../engines/index.js";
import { createTableIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/** The table postgresRateLimitStore counts in; its columns are rate-limiter-flexible's. */
export const RATE_LIMIT_TABLE = "flagpost_rate_limits";

/**
 * PostgreSQL only (a no-op elsewhere): the shared rate limit's counters, one row per limited id
 * and window (`key`), with the requests counted (`points`) and the window's end in epoch
 * milliseconds (`expire`). rate-limiter-flexible would create this table itself on first use;
 * creating it here keeps every flagpost table in the migrations and lets it start with
 * `tableCreated: true`.
 */
export const rateLimitsMigration = schemaStep(async (db, engine, t) => {
  if (!engineTraits(engine).sharedRateLimits) return;
  await createTableIfAbsent(db, engine, RATE_LIMIT_TABLE)
    // Byte-wise like every other identifier column (the ids it counts are keys' hashes and addresses).
    .addColumn("key", t.exactText(255), (c) => c.primaryKey())
    .addColumn("points", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("expire", "bigint")
    .execute();
});
