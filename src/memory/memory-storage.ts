import type { Storage } from "../ports/storage/index.js";
import { MemoryActivityRepository } from "./memory-activity.js";
import { MemoryApiKeyRepository } from "./memory-api-keys.js";
import { MemoryDeliveryReportRepository } from "./memory-delivery-reports.js";
import { MemoryDomainRepository } from "./memory-domains.js";
import { MemoryEventRepository } from "./memory-events.js";
import { MemoryEmailRepository } from "./memory-emails.js";
import { MemoryFlagHistoryRepository } from "./memory-flag-history.js";
import { MemoryFlagScheduleRepository } from "./memory-flag-schedules.js";
import { MemoryFlagInsightRepository } from "./memory-flag-insights.js";
import { MemoryExperimentRepository } from "./memory-experiments.js";
import { MemoryFlagRepository } from "./memory-flags.js";
import { MemoryIdempotencyRepository } from "./memory-idempotency.js";
import { MemorySettingsRepository } from "./memory-settings.js";
import { MemorySuppressionRepository } from "./memory-suppressions.js";
import { memoryTransactions } from "./memory-transaction.js";
import { MemoryWebhookDeliveryRepository } from "./memory-webhook-deliveries.js";
import { MemoryWebhookState } from "./memory-webhook-state.js";
import { MemoryWebhookRepository } from "./memory-webhooks.js";

/**
 * Storage in this process's memory, for tests and ephemeral use. Every contract of the port
 * holds within one process (each method runs without interleaving), but nothing survives a
 * restart and nothing is shared between processes: use SQLite for anything you cannot lose.
 */
export function memoryStorage(): Storage {
  const idempotency = new MemoryIdempotencyRepository();
  const flagHistory = new MemoryFlagHistoryRepository();
  const events = new MemoryEventRepository(idempotency);
  const webhooks = new MemoryWebhookState();
  const flagSchedules = new MemoryFlagScheduleRepository();
  const domains = new MemoryDomainRepository();
  const suppressions = new MemorySuppressionRepository();
  const emails = new MemoryEmailRepository(idempotency, webhooks, (name) => domains.isPaused(name));
  const flags = new MemoryFlagRepository();
  return {
    name: "memory",
    flags,
    flagHistory,
    flagSchedules,
    flagInsights: new MemoryFlagInsightRepository(),
    apiKeys: new MemoryApiKeyRepository(),
    idempotency,
    events,
    experiments: new MemoryExperimentRepository(events),
    emails,
    suppressions,
    settings: new MemorySettingsRepository(),
    deliveryReports: new MemoryDeliveryReportRepository(),
    webhooks: new MemoryWebhookRepository(webhooks),
    webhookDeliveries: new MemoryWebhookDeliveryRepository(webhooks),
    domains,
    activity: new MemoryActivityRepository(emails, events, webhooks),
    transaction: memoryTransactions({ flags, flagHistory, flagSchedules, suppressions, domains, webhooks }),
    async migrate() {},
    async close() {},
  };
}
