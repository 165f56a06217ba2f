import { FlagpostError } from "../src/errors.js";
import type { WebhookOptions } from "../src/webhooks/index.js";
import { parseSchedule } from "../src/jobs/index.js";
import { UsageError } from "./args.js";

/**
 * `flagpost serve`'s webhook settings from the environment:
 * - FLAGPOST_WEBHOOK_ALLOW_PRIVATE `true` lets endpoints resolve to loopback, private and
 *   link-local addresses (default `false`);
 * - FLAGPOST_WEBHOOK_RETRY_SCHEDULE the waits before each retry, `5s,5m,30m,2h,5h,10h,10h` by default.
 */
export function webhookOptionsFrom(env: NodeJS.ProcessEnv): WebhookOptions {
  const options: WebhookOptions = {};
  const allow = env.FLAGPOST_WEBHOOK_ALLOW_PRIVATE?.trim().toLowerCase();
  if (allow !== undefined && allow !== "") {
    if (allow !== "true" && allow !== "false")
      throw new UsageError(`FLAGPOST_WEBHOOK_ALLOW_PRIVATE must be true or false, not "${allow}"`);
    options.allowPrivateNetworks = allow === "true";
  }
  const schedule = env.FLAGPOST_WEBHOOK_RETRY_SCHEDULE;
  if (schedule !== undefined && schedule.trim() !== "") {
    try {
      options.retrySchedule = parseSchedule(schedule).delaysMs;
    } catch (error) {
      if (error instanceof FlagpostError) throw new UsageError(`FLAGPOST_WEBHOOK_RETRY_SCHEDULE: ${error.message}`);
      throw error;
    }
  }
  return options;
}
