import { importWithPeers } from "../../src/optional-peer.js";
import { flexibleRateLimitStore, type RateLimitStore } from "../../src/ports/rate-limit-store.js";

/**
 * The part of an ioredis client (`new Redis(url)`) the store relies on: rate-limiter-flexible
 * defines its Lua script as a command, and reads `status` to fail at once while disconnected.
 */
export interface RedisClientLike {
  status: string;
  defineCommand(name: string, definition: { numberOfKeys?: number; lua: string }): void;
}

export interface RedisRateLimitOptions {
  /** Prefix of every key the store writes, so several apps can share one Redis. Default "flagpost-rl". */
  keyPrefix?: string;
}

/**
 * A rate limit shared by every process using one Redis, for `rateLimit.store` of the HTTP
 * handler: rate-limiter-flexible's RateLimiterRedis (one atomic Lua script per request). While
 * the client is not connected it fails at once rather than queueing, so the handler counts in
 * its own process meanwhile. rate-limiter-flexible is an optional peer dependency: this rejects
 * when it is not installed. The client stays the caller's to close.
 */
export async function redisRateLimitStore(
  client: RedisClientLike,
  options: RedisRateLimitOptions = {},
): Promise<RateLimitStore> {
  const { RateLimiterRedis } = await importWithPeers(
    "flagpost/redis",
    ["rate-limiter-flexible"],
    () => import("rate-limiter-flexible"),
  );
  const prefix = options.keyPrefix ?? "flagpost-rl";
  return flexibleRateLimitStore(
    (window) =>
      new RateLimiterRedis({
        storeClient: client,
        rejectIfRedisNotReady: true,
        // One limiter per limit: its points and window are part of every key it counts.
        keyPrefix: `${prefix}:${window.points}-${window.windowSeconds}`,
        points: window.points,
        duration: window.windowSeconds,
      }),
  );
}
