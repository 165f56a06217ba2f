import type { RateLimitOptions } from "../adapters/http/index.js";
import { errorFields, type Logger } from "../src/ports/logger.js";
import { FlagpostError } from "../src/errors.js";
import type { RateLimitStore } from "../src/ports/rate-limit-store.js";
import { UsageError } from "./args.js";
import { positiveFromEnv } from "./env-number.js";
import { maskUrl } from "./mail-transport.js";
import { databaseSettingsFrom, DEFAULT_DATABASE, openDatabase, parseDatabaseUrl } from "./open-database.js";

/**
 * `flagpost serve`'s rate limit from the environment:
 * - FLAGPOST_RATE_LIMIT_STORE: `memory` (default: each process counts alone), `postgres` (one
 *   count for every process on FLAGPOST_DB, which must be PostgreSQL) or `redis` (one count in
 *   the Redis at FLAGPOST_REDIS_URL);
 * - FLAGPOST_RATE_LIMIT_BURST, FLAGPOST_RATE_LIMIT_PER_SECOND: the per-key limit (2000, 1000);
 * - FLAGPOST_RATE_LIMIT: `on` (default) or `off` — no limit at all, neither per key nor per
 *   client address for requests without a valid key (only behind a gateway that limits).
 */

export const RATE_LIMIT_STORES = ["memory", "postgres", "redis"] as const;

export interface RateLimitSetup {
  /** For the handler; undefined keeps its defaults, false turns the limit off. */
  options: RateLimitOptions | false | undefined;
  /** For the startup log line; a password in the URL is masked. */
  description: string;
  /** Releases the store's connections (after the server has stopped). */
  close(): Promise<void>;
}

async function postgresStore(
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<{ store: RateLimitStore; close(): Promise<void> }> {
  const url = env.FLAGPOST_DB ?? DEFAULT_DATABASE;
  if (parseDatabaseUrl(url).engine !== "postgres")
    throw new UsageError("FLAGPOST_RATE_LIMIT_STORE=postgres needs FLAGPOST_DB to be a postgres:// URL");
  const { postgresRateLimitStore } = await import("../adapters/kysely/index.js");
  // A pool of its own: a burst of limited requests never waits behind the storage's queries.
  const db = await openDatabase(url, databaseSettingsFrom(env, logger));
  try {
    return { store: await postgresRateLimitStore(db), close: () => db.destroy() };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

async function redisStore(env: NodeJS.ProcessEnv, logger: Logger) {
  const url = env.FLAGPOST_REDIS_URL?.trim();
  if (!url) throw new UsageError("FLAGPOST_RATE_LIMIT_STORE=redis needs FLAGPOST_REDIS_URL (redis://host:6379)");
  let Redis;
  try {
    ({ Redis } = await import("ioredis"));
  } catch (error) {
    throw new UsageError(
      `FLAGPOST_RATE_LIMIT_STORE=redis needs the "ioredis" package: npm install ioredis (${(error as Error).message})`,
    );
  }
  // No offline queue and a short command timeout: while Redis is away a request is counted in
  // this process at once instead of waiting for a reconnection.
  const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, commandTimeout: 1_000 });
  let reported = false;
  client.on("error", (error: Error) => {
    if (!reported) logger.warn("redis connection error", errorFields(error));
    reported = true;
  });
  client.on("ready", () => (reported = false));
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new FlagpostError("unavailable", `Cannot reach Redis at ${maskUrl(url)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const { redisRateLimitStore } = await import("../adapters/redis/index.js");
  const close = async () => void (await client.quit().catch(() => client.disconnect()));
  try {
    return { store: await redisRateLimitStore(client), close, description: maskUrl(url) };
  } catch (error) {
    await close();
    throw error;
  }
}

export async function openRateLimit(env: NodeJS.ProcessEnv, logger: Logger): Promise<RateLimitSetup> {
  const enabled = env.FLAGPOST_RATE_LIMIT?.trim().toLowerCase() || "on";
  if (enabled !== "on" && enabled !== "off")
    throw new UsageError(`FLAGPOST_RATE_LIMIT must be on or off, not "${env.FLAGPOST_RATE_LIMIT}"`);
  if (enabled === "off") return { options: false, description: "off (FLAGPOST_RATE_LIMIT=off)", close: async () => {} };
  const kind = env.FLAGPOST_RATE_LIMIT_STORE?.trim() || "memory";
  if (!(RATE_LIMIT_STORES as readonly string[]).includes(kind))
    throw new UsageError(`FLAGPOST_RATE_LIMIT_STORE must be ${RATE_LIMIT_STORES.join(", ")}, not "${kind}"`);
  const burst = positiveFromEnv(env, "FLAGPOST_RATE_LIMIT_BURST", { integer: true });
  const perSecond = positiveFromEnv(env, "FLAGPOST_RATE_LIMIT_PER_SECOND", { integer: false });
  const limits: RateLimitOptions = {
    ...(burst === undefined ? {} : { burst }),
    ...(perSecond === undefined ? {} : { perSecond }),
  };
  if (kind === "postgres") {
    const { store, close } = await postgresStore(env, logger);
    return { options: { ...limits, store }, description: "shared, in PostgreSQL (FLAGPOST_DB)", close };
  }
  if (kind === "redis") {
    const { store, close, description } = await redisStore(env, logger);
    return { options: { ...limits, store }, description: `shared, in Redis at ${description}`, close };
  }
  return {
    options: Object.keys(limits).length > 0 ? limits : undefined,
    description: "per process (memory)",
    close: async () => undefined,
  };
}
