/**
 * `flagpost`: the public surface. The facade (`createFlagpost`, `memoryStorage`, the pure
 * `evaluate`), the one error type, the services' types and the ports an outside adapter
 * implements. Everything else is internal (the ports in src/ports and each feature's index.ts, which adapters use). The list of names is pinned by
 * test/package/public-surface.test.ts: changing it is a deliberate decision, not a side effect.
 */
export { createFlagpost, type Flagpost, type FlagpostOptions } from "./flagpost.js";
export type { MetricsSnapshot } from "./metrics/counters.js";
export type { Overview, OverviewView } from "./metrics/overview.js";
export { memoryStorage } from "./memory/memory-storage.js";
export { evaluate } from "./flags/evaluation/evaluate.js";
export { FlagpostError, isFlagpostError, type ErrorCode, type ErrorDetail } from "./errors.js";

// The services behind `fp.flags`, `fp.emails`, `fp.events`, `fp.experiments`, `fp.keys`, `fp.flagClient`, `fp.flagInsights`.
export type {
  FlagStore,
  FlagChange,
  FlagChangeListener,
  FlagPage,
  ListFlagsOptions,
} from "./flags/store/flag-store.js";
export type {
  FlagClient,
  FlagClientEvent,
  FlagClientListener,
  FlagClientStatus,
  FlagContext,
  FlagEvaluation,
  FlagEvaluationReason,
  ValueContext,
  ValueEvaluation,
  VariantContext,
} from "./flags/client/flag-client.js";
export type { EmailService, IdempotencyOptions, SendBatchOptions } from "./emails/email-service.js";
export type { ReportResult } from "./emails/report-application.js";
export type { UpdateEmailRequest } from "./emails/email-changes.js";
export type {
  ListSuppressionsInput,
  SuppressionListEntry,
  SuppressionService,
  SuppressionView,
} from "./emails/suppression-service.js";
export type { DeliveryReport, DeliveryReportSource, DeliveryReportType } from "./emails/reports.js";
export type { EventTracker, EnqueueResult, EventTrackerOptions, TrackOptions } from "./events/event-tracker.js";
export type { EventBufferOptions, EventBufferStats, UnstoredReason, WhenFull } from "./events/event-buffer-options.js";
export type { ExperimentService } from "./experiments/experiment-results.js";
export type { ApiKeys, ApiKeyInfo, CreatedApiKey, CreateKeyInput } from "./auth/api-keys.js";
export type { StreamTokens, StreamTokenCheck } from "./auth/stream-tokens.js";
export type { Scope } from "./auth/scopes.js";
export type { ExposureOptions, ExposureEvent, EventSink } from "./flags/client/exposures.js";
export type { StoreSyncOptions } from "./flags/client/store-sync.js";
export type {
  CreateScheduleInput,
  FlagSchedulePage,
  FlagSchedules,
  FlagScheduleView,
  ListSchedulesOptions,
} from "./flags/schedules/flag-schedules.js";
export type { ScheduleWorkerOptions } from "./flags/schedules/schedule-worker.js";
export type { IdempotencyPurgeOptions } from "./idempotency-purge.js";
export type {
  FlagStream,
  FlagStreamBatch,
  FlagStreamChange,
  FlagStreamOptions,
  FlagStreamStart,
  FlagStreamSubscriber,
  FlagStreamSubscription,
} from "./flags/store/flag-stream.js";
export type {
  FlagInsights,
  FlagInsightsView,
  HourlyInsight,
  InsightsQuery,
  StaleFlag,
  StaleReason,
  Staleness,
} from "./flags/insights/flag-insights.js";
export type { InsightsOptions } from "./flags/insights/insights-recorder.js";
export type { OutboxWorkerOptions } from "./emails/outbox-options.js";
export type { RetryPolicy } from "./jobs/retry-policy.js";
export type { WebhookService } from "./webhooks/webhook-service.js";
export type { WebhookOptions } from "./webhooks/webhooks.js";
export type { WebhookWorkerOptions } from "./webhooks/delivery-worker.js";
export type { ResolvedAddress, Resolver } from "./webhooks/address-policy.js";

// What goes in and comes out of them.
export type {
  AttributeOperator,
  AttributeRule,
  CreateFlagInput,
  EvaluationContext,
  EvaluationReason,
  EvaluationResult,
  Flag,
  FlagSummary,
  PercentageRule,
  Prerequisite,
  Rule,
  Scalar,
  UpdateFlagInput,
  UsersRule,
  Variant,
} from "./flags/schema.js";
export type { BatchValidation, EmailEventRequest, ExternalEventType, SendEmailRequest } from "./emails/schema.js";
export type { BatchResult, EmailEventView, EmailListView, EmailSummary, EmailView } from "./emails/views.js";
export type {
  AcceptedEvent,
  EventPage,
  EventProperties,
  EventView,
  QueryEventsInput,
  TrackEventInput,
} from "./events/schema.js";
export type { ExperimentResults, ExperimentResultsInput, VariantResult, VersusControl } from "./experiments/schema.js";
export type { CreateWebhookInput, UpdateWebhookInput } from "./webhooks/schema.js";
export type { ListView, PageQuery } from "./pagination.js";
export type {
  WebhookAttemptView,
  WebhookEventLogView,
  WebhookEventView,
  WebhookSummaryView,
  WebhookView,
} from "./webhooks/views.js";

// The ports: storage, mail transport, report intake (parser and source), logger, clock.
export type * from "./ports/storage/index.js";
export type { ReportParser } from "./ports/report-parser.js";
export type { InboundRequest, ReportSource, SignatureChecks } from "./ports/report-source.js";
export {
  TransportError,
  isTransportError,
  type MailAddress,
  type MailTransport,
  type OutgoingAttachment,
  type OutgoingMessage,
  type RecipientRejection,
  type TransportErrorKind,
  type TransportErrorOptions,
  type TransportResult,
} from "./ports/transport.js";
export type { Logger } from "./ports/logger.js";
export type { Clock } from "./ports/clock.js";
