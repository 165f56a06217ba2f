/** The seam adapters and the CLI use for the email service: sending, the outbox, delivery reports and their classification, suppressions. */
export { parseAddress } from "./addresses.js";
export {
  SENDER_SIDE_REASONS,
  classifiedFields,
  classifyRecipient,
  definedFields,
  isRecipientCaused,
  providerBounce,
  withoutDiagnosticType,
} from "./bounce-classification.js";
export type { RecipientFacts } from "./bounce-classification.js";
export { smtpCommandFor } from "./classification/codes.js";
export type { UpdateEmailRequest } from "./email-changes.js";
export type { IdempotencyOptions } from "./email-service-options.js";
export { EMAIL_STATUSES, TRANSITIONS, applyTransition, sourcesOf } from "./lifecycle.js";
export type { OutboxWorkerOptions } from "./outbox-options.js";
export {
  clippedText,
  emailIdFromVerp,
  enhancedStatus,
  firstVerpId,
  isoTime,
  normalMessageId,
  normalRecipient,
  readFields,
} from "./report-fields.js";
export { REPORT_SOURCE_NAME, reportSourceRegistry, storedSignatureChecks } from "./report-sources.js";
export type { BounceReason, DeliveryAction, DeliveryReport, DeliveryReportType } from "./reports.js";
export type { BatchValidation, EmailEventRequest, SendEmailRequest } from "./schema.js";
export type { ListSuppressionsInput } from "./suppression-service.js";
export { suppressionWrites } from "./suppression-writes.js";
