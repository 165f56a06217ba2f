import type { FlagHistoryEntry, Storage } from "../ports/storage/index.js";
import { MemoryActivityRepository } from "./memory-activity.js";
import { MemoryDomainRepository } from "./memory-domains.js";
import { MemoryEventRepository } from "./memory-events.js";
import { MemoryEmailRepository } from "./memory-emails.js";
import { MemoryFlagScheduleRepository } from "./memory-flag-schedules.js";
import { MemoryFlagInsightRepository } from "./memory-flag-insights.js";
import { MemoryExperimentRepository } from "./memory-experiments.js";
import { MemoryFlagRepository } from "./memory-flags.js";
import { MemoryIdempotencyRepository } from "./memory-idempotency.js";
import {
  memoryApiKeys,
  memoryDeliveryReports,
  memoryFlagHistory,
  memorySettings,
  memoryWebhooks,
} from "./memory-row-stores.js";
import { MemoryTable } from "./memory-table.js";
import { MemorySuppressionRepository } from "./memory-suppressions.js";
import { memoryTransactions } from "./memory-transaction.js";
import { MemoryWebhookDeliveryRepository } from "./memory-webhook-deliveries.js";
import { MemoryWebhookState } from "./memory-webhook-state.js";

/**
 * Storage in this process's memory, for tests and ephemeral use. Every contract of the port
 * holds within one process (each method runs without interleaving), but nothing survives a
 * restart and nothing is shared between processes: use SQLite for anything you cannot lose.
 */
export function memoryStorage(): Storage {
  const idempotency = new MemoryIdempotencyRepository();
  const flagHistory = new MemoryTable<FlagHistoryEntry>((e) => e.id, { by: (e) => [e.id], descending: true });
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
    flagHistory: memoryFlagHistory(flagHistory),
    flagSchedules,
    flagInsights: new MemoryFlagInsightRepository(),
    apiKeys: memoryApiKeys(),
    idempotency,
    events,
    experiments: new MemoryExperimentRepository(events),
    emails,
    suppressions,
    settings: memorySettings(),
    deliveryReports: memoryDeliveryReports(),
    webhooks: memoryWebhooks(webhooks),
    webhookDeliveries: new MemoryWebhookDeliveryRepository(webhooks),
    domains,
    activity: new MemoryActivityRepository(emails, events, webhooks),
    transaction: memoryTransactions({ flags, flagHistory, flagSchedules, suppressions, domains, webhooks }),
    async migrate() {},
    async close() {},
  };
}
