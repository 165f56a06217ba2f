/**
 * When to try a transient failure again: exponential backoff with full jitter (the delay is drawn
 * uniformly between 0 and the exponential ceiling), so that many emails failing at once, e.g.
 * when the SMTP server restarts, do not all come back at the same moment.
 */
export interface RetryPolicy {
  /** Send attempts in all, the first included, before the email is failed. Default 8. */
  maxAttempts: number;
  /** Ceiling of the first retry's delay. Default 5 s. */
  initialDelayMs: number;
  /** The ceiling doubles per attempt up to this. Default 30 min. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 8,
  initialDelayMs: 5_000,
  maxDelayMs: 30 * 60 * 1000,
};

/** The largest delay after `attempt` failed attempts (1-based): initial × 2^(attempt−1), capped. */
export function delayCeiling(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
}

/** The delay before the next attempt, after `attempt` failed ones: uniform in [0, ceiling]. */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  return Math.round(random() * delayCeiling(policy, attempt));
}

export function checkRetryPolicy(policy: RetryPolicy): void {
  const { maxAttempts, initialDelayMs, maxDelayMs } = policy;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError("retry.maxAttempts must be an integer of at least 1");
  if (!Number.isFinite(initialDelayMs) || initialDelayMs < 0) throw new RangeError("retry.initialDelayMs must be a number of at least 0");
  if (!Number.isFinite(maxDelayMs) || maxDelayMs < initialDelayMs) throw new RangeError("retry.maxDelayMs must be at least retry.initialDelayMs");
}
