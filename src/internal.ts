/**
 * Internal entry: what flagpost's own adapters, CLI, benchmarks and tests share with the core.
 * Not in package.json `exports`: users import `flagpost` (src/index.ts), whose names are pinned.
 */
export { createFlagpost, type Flagpost, type FlagpostOptions } from "./flagpost.js";
export { memoryStorage } from "./memory/memory-storage.js";
export { FlagpostError, ERROR_CODES, type ErrorCode } from "./errors.js";
export { type Clock } from "./clock.js";
export { type Logger, asLogger, jsonLogger, silentLogger, errorFields } from "./logger.js";
export { uuidv7 } from "./ids.js";
export { SCOPES, hasScope, isScope, type Scope } from "./auth/scopes.js";
export { ApiKeys, type ApiKeyInfo } from "./auth/api-keys.js";
export { sameSecret } from "./auth/key-hash.js";
export { evaluate } from "./flags/evaluate.js";
export { parseEvaluationContext } from "./flags/context.js";
export { FlagClient, type FlagClientEvent, type FlagContext } from "./flags/flag-client.js";
export { variantBucketOf, variantOf } from "./flags/variants.js";
export type { SnapshotFlag } from "./flags/compile.js";
export { createRemoteFlagClient } from "./flags/remote-flag-client.js";
export { type FlagSnapshotBody, parseSnapshot } from "./flags/snapshot.js";
export { type CreateScheduleInput } from "./flags/flag-schedules.js";
export { ScheduleWorker } from "./flags/schedule-worker.js";
export { EXPOSURE_EVENT, ExposureRecorder, type EventSink } from "./flags/exposures.js";
export { bucketOf, murmur3Utf8 } from "./flags/bucket.js";
export * from "./flags/schema.js";
export { TRACK_OPERATION } from "./events/event-tracker.js";
export type { EventBufferOptions, UnstoredReason } from "./events/event-buffer-options.js";
export { batchBodySchema, type TrackEventInput } from "./events/schema.js";
export { type ExperimentResults, type ExperimentResultsInput } from "./experiments/schema.js";
export { compare, moments, sampleRatioMismatch } from "./experiments/stats.js";
export { fingerprint } from "./idempotency.js";
export { parseInput } from "./validation.js";
export { inputProblem, isStorableText, MAX_NESTING_DEPTH } from "./input-policy.js";
export type * from "./storage/index.js";
export { type IdempotencyOptions } from "./emails/email-service.js";
export { type OutboxWorkerOptions } from "./emails/outbox-worker.js";
export { DEFAULT_RETRY_POLICY, retryDelay, delayCeiling } from "./jobs/retry-policy.js";
export { TRANSITIONS, applyTransition, sourcesOf, EMAIL_STATUSES } from "./emails/lifecycle.js";
export { parseAddress } from "./emails/addresses.js";
export type * from "./emails/reports.js";
export * from "./emails/report-fields.js";
export * from "./emails/schema.js";
export type * from "./emails/views.js";
export * from "./transport.js";
export type { CreateWebhookInput, PageQuery, UpdateWebhookInput } from "./webhooks/schema.js";
export type { WebhookOptions } from "./webhooks/webhooks.js";
export { windowFor, type RateLimitStore } from "./rate-limit-store.js";
