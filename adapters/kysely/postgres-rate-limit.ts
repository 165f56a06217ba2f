import { CompiledQuery } from "kysely";
import { FlagpostError } from "../../src/errors.js";
import { flexibleRateLimitStore, type RateLimitStore } from "../../src/ports/rate-limit-store.js";
import { detectEngine, type AnyKysely } from "./dialect.js";
import { RATE_LIMIT_TABLE } from "./migrations/0016-rate-limits.js";

/**
 * A rate limit shared by every process on one PostgreSQL database, for `rateLimit.store` of the
 * HTTP handler: rate-limiter-flexible's RateLimiterPostgres, counting in `flagpost_rate_limits`
 * (created by migration 0016: run `fp.ready()` or `storage.migrate()` first). Each request costs
 * one upsert on `db`'s pool, in the connection's schema (search_path) like every flagpost table.
 * rate-limiter-flexible is an optional peer dependency: this rejects when it is not installed.
 */
export async function postgresRateLimitStore(db: AnyKysely): Promise<RateLimitStore> {
  if (detectEngine(db) !== "postgres")
    throw new FlagpostError("validation_error", "postgresRateLimitStore needs a PostgreSQL Kysely instance", {
      details: [{ path: "db", message: "is not PostgreSQL" }],
    });
  let RateLimiterPostgres;
  try {
    ({ RateLimiterPostgres } = await import("rate-limiter-flexible"));
  } catch (error) {
    throw new FlagpostError(
      "unavailable",
      'postgresRateLimitStore needs the "rate-limiter-flexible" package: npm install rate-limiter-flexible',
      { cause: error },
    );
  }
  const own = db.withoutPlugins();
  // RateLimiterPostgres speaks to a pg Pool ({ text, values } → { rows, rowCount }): give it one
  // that runs each statement through Kysely instead.
  const client = {
    async query(query: { text: string; values?: unknown[] }) {
      const result = await own.executeQuery(CompiledQuery.raw(query.text, query.values ?? []));
      return { rows: result.rows, rowCount: result.rows.length };
    },
  };
  return flexibleRateLimitStore(
    (window) =>
      new RateLimiterPostgres({
        storeClient: client,
        storeType: "pool",
        tableName: RATE_LIMIT_TABLE,
        tableCreated: true,
        // One limiter per limit: its points and window are part of every key it counts.
        keyPrefix: `${window.points}-${window.windowSeconds}`,
        points: window.points,
        duration: window.windowSeconds,
      }),
  );
}
