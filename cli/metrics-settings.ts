import { UsageError } from "./args.js";

/**
 * FLAGPOST_METRICS_PUBLIC `true` serves `GET /metrics` without a key (a scraper inside a private
 * network); unset or `false`, a key with `metrics:read` is needed (docs/operations.md).
 */
export function metricsSettings(env: NodeJS.ProcessEnv): { public: boolean } {
  const value = env.FLAGPOST_METRICS_PUBLIC?.trim().toLowerCase();
  if (value === undefined || value === "") return { public: false };
  if (value !== "true" && value !== "false")
    throw new UsageError(`FLAGPOST_METRICS_PUBLIC must be true or false, not "${value}"`);
  return { public: value === "true" };
}
