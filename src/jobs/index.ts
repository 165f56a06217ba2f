// The lease-claimed job machinery: one backoff, one retry policy, one group commit, one worker.
export { type Backoff, backoffCeiling, backoffDelay, checkBackoff, exponential, parseSchedule } from "./backoff.js";
export { checkRetryPolicy, DEFAULT_RETRY_POLICY, delayCeiling, retryBackoff, retryDelay, type RetryPolicy } from "./retry-policy.js";
export { GroupCommit, type GroupCommitOptions } from "./group-commit.js";
export type { JobHandler, JobQueue, LeasedJob } from "./job-queue.js";
export { LeaseWorker, type LeaseWorkerOptions } from "./lease-worker.js";
export { deadLocalOwners, jobOwner, ownerOfThisProcess } from "./owner.js";
