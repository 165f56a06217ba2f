import { FlagpostError } from "../errors.js";
import { type Backoff, backoffCeiling, backoffDelay, checkBackoff, exponential } from "./backoff.js";

/**
 * A job's retry budget: how many attempts in all, and the backoff between them. Exponential with
 * full jitter by default (`initialDelayMs` doubling to `maxDelayMs`); `schedule` replaces it with
 * explicit delays per retry (`parseSchedule("5s,5m,30m,2h").delaysMs`).
 */
export interface RetryPolicy {
  /** Attempts in all, the first included, before the job fails for good. */
  maxAttempts: number;
  /** Ceiling of the first retry's delay (exponential). */
  initialDelayMs: number;
  /** The ceiling doubles per attempt up to this (exponential). */
  maxDelayMs: number;
  /** Explicit delays in ms, one per retry, the last repeated; when set, the exponential fields are unused. */
  schedule?: readonly number[];
  /** With `schedule`: each delay is drawn within ± this fraction of it (default 0, exactly as listed). */
  scheduleSpread?: number;
}

/** The outbox's defaults: 8 attempts, 5 s doubling to at most 30 min, full jitter. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 8,
  initialDelayMs: 5_000,
  maxDelayMs: 30 * 60 * 1000,
};

export function retryBackoff(policy: RetryPolicy): Backoff {
  return policy.schedule
    ? { kind: "schedule", delaysMs: policy.schedule, spread: policy.scheduleSpread ?? 0 }
    : exponential(policy.initialDelayMs, policy.maxDelayMs, "full");
}

/** The largest delay after `attempt` failed attempts (1-based). */
export function delayCeiling(policy: RetryPolicy, attempt: number): number {
  return backoffCeiling(retryBackoff(policy), attempt);
}

/** The delay before the next attempt, after `attempt` failed ones, in whole ms. */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  return Math.round(backoffDelay(retryBackoff(policy), attempt, random));
}

/** Throws `FlagpostError("validation_error")` naming the option that cannot be used. */
export function checkRetryPolicy(policy: RetryPolicy, name = "retry"): void {
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1)
    throw new FlagpostError("validation_error", `${name}.maxAttempts must be an integer of at least 1`);
  checkBackoff(retryBackoff(policy), policy.schedule ? `${name}.schedule` : `${name}.initialDelayMs/maxDelayMs`);
}
