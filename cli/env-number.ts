import { UsageError } from "./args.js";

/**
 * A number above 0 from the environment variable `name`, or undefined when it is unset or blank;
 * anything else is a usage error naming the variable. The one reading of numeric settings for
 * `flagpost serve` (worker, rate limit, timeouts, log sampling).
 */
export function positiveFromEnv(
  env: NodeJS.ProcessEnv,
  name: string,
  { integer }: { integer: boolean },
): number | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
    throw new UsageError(`${name} must be a ${integer ? "whole " : ""}number above 0, not "${text}"`);
  return value;
}
