import { DEFAULT_REQUEST_LOG_SAMPLE, REQUEST_LOGGING, type RequestLogging } from "../adapters/http/index.js";
import { UsageError } from "./args.js";
import { positiveFromEnv } from "./env-number.js";

/**
 * `flagpost serve`'s request lines from the environment (docs/http.md, "Request logging"):
 * - FLAGPOST_LOG_REQUESTS: `sampled` (default: every 5xx, and one in FLAGPOST_LOG_SAMPLE of the
 *   rest, each line carrying `sample`), `all` (one line per request) or `off`;
 * - FLAGPOST_LOG_SAMPLE: N of "one in N" (default 100).
 * Sampled by default: one line per request is 45–75 MB per 10 s of full load (issue 17), and a
 * 5xx, the line an operator needs, is always written.
 */

export const DEFAULT_REQUEST_LOGGING: RequestLogging = "sampled";

export function requestLoggingFrom(env: NodeJS.ProcessEnv): {
  logRequests: RequestLogging;
  requestLogSample: number;
} {
  const mode = env.FLAGPOST_LOG_REQUESTS?.trim().toLowerCase() || DEFAULT_REQUEST_LOGGING;
  if (!(REQUEST_LOGGING as readonly string[]).includes(mode))
    throw new UsageError(`FLAGPOST_LOG_REQUESTS must be ${REQUEST_LOGGING.join(", ")}, not "${mode}"`);
  const sample = positiveFromEnv(env, "FLAGPOST_LOG_SAMPLE", { integer: true }) ?? DEFAULT_REQUEST_LOG_SAMPLE;
  return { logRequests: mode as RequestLogging, requestLogSample: sample };
}
