export { createFlagpost, type Flagpost, type FlagpostOptions } from "./flagpost.js";
export { memoryStorage } from "./memory/memory-storage.js";
export { FlagpostError, ERROR_CODES, isFlagpostError, type ErrorCode, type ErrorDetail } from "./errors.js";
export { type Clock, systemClock } from "./clock.js";
export { type Logger, jsonLogger, silentLogger, defaultLogger, errorFields } from "./logger.js";
export { uuidv7 } from "./ids.js";
export { SCOPES, hasScope, isScope, type Scope } from "./auth/scopes.js";
export { ApiKeys, type ApiKeyInfo, type CreatedApiKey, type CreateKeyInput } from "./auth/api-keys.js";
export {
  FlagStore,
  type FlagChange,
  type FlagChangeListener,
  type FlagPage,
  type ListFlagsOptions,
} from "./flags/flag-store.js";
export { evaluate } from "./flags/evaluate.js";
export { parseEvaluationContext } from "./flags/context.js";
export {
  FlagClient,
  type FlagClientEvent,
  type FlagClientListener,
  type FlagClientStatus,
  type FlagContext,
  type FlagEvaluation,
  type FlagEvaluationReason,
  type FlagFeed,
  type VariantContext,
} from "./flags/flag-client.js";
export { variantBucketOf, variantOf, VARIANT_SALT } from "./flags/variants.js";
export type { SnapshotFlag } from "./flags/compile.js";
export { StoreSync, type StoreSyncOptions } from "./flags/store-sync.js";
export { createRemoteFlagClient, parseSnapshot, type RemoteFlagClientOptions } from "./flags/remote-flag-client.js";
export {
  EXPOSURE_EVENT,
  ExposureRecorder,
  type EventSink,
  type ExposureEvent,
  type ExposureOptions,
  type ExposureStats,
} from "./flags/exposures.js";
export { bucketOf, murmur3Utf8, percentageThreshold } from "./flags/bucket.js";
export * from "./flags/schema.js";
export {
  EventTracker,
  IN_PROCESS_SCOPE,
  TRACK_OPERATION,
  BATCH_OPERATION,
  type EnqueueResult,
  type EventTrackerOptions,
  type TrackOptions,
} from "./events/event-tracker.js";
export type { EventBufferOptions, EventBufferStats, UnstoredReason, WhenFull } from "./events/event-buffer.js";
export {
  batchBodySchema,
  queryEventsSchema,
  trackEventSchema,
  MAX_BATCH_EVENTS,
  MAX_FUTURE_MS,
  MAX_PROPERTIES_BYTES,
  type AcceptedEvent,
  type EventPage,
  type EventProperties,
  type QueryEventsInput,
  type TrackEventInput,
  type TrackedEvent,
} from "./events/schema.js";
export { ExperimentService } from "./experiments/experiment-results.js";
export {
  experimentResultsQuerySchema,
  type ExperimentResults,
  type ExperimentResultsInput,
  type VariantResult,
  type VersusControl,
} from "./experiments/schema.js";
export {
  compare,
  moments,
  sampleRatioMismatch,
  SRM_THRESHOLD,
  type Comparison,
  type Moments,
  type SrmResult,
  type Sums,
} from "./experiments/stats.js";
export { fingerprint, runIdempotent, type IdempotentRequest } from "./idempotency.js";
export { parseInput, checkInput, validationError } from "./validation.js";
export { inputProblem, isStorableText, textProblem, MAX_NESTING_DEPTH } from "./input-policy.js";
export { parseIsoInstant } from "./time.js";
export type * from "./storage/index.js";
export { EmailService, type IdempotencyOptions, type SendBatchOptions } from "./emails/email-service.js";
export { OutboxWorker, type OutboxWorkerOptions } from "./emails/outbox-worker.js";
export { DEFAULT_RETRY_POLICY, retryDelay, delayCeiling, type RetryPolicy } from "./jobs/retry-policy.js";
export { TRANSITIONS, applyTransition, sourcesOf, EMAIL_STATUSES, type TransitionResult } from "./emails/lifecycle.js";
export { parseAddress, isAddress } from "./emails/addresses.js";
export { messageIdFor } from "./emails/message.js";
export * from "./emails/schema.js";
export type * from "./emails/views.js";
export * from "./transport.js";
