/** The seam adapters and the CLI use for the job machinery shared by the outbox, webhooks and schedules: leases, backoff, group commits. */
export { backoffDelay, exponential, parseSchedule, retrying } from "./backoff.js";
export { ByteBudget } from "./byte-budget.js";
export { GroupCommit } from "./group-commit.js";
export { DEFAULT_RETRY_POLICY, delayCeiling, retryDelay } from "./retry-policy.js";
