import type {
  FlagHistoryEntry,
  FlagRecord,
  SendingDomainRecord,
  Storage,
  SuppressionRecord,
} from "../ports/storage/index.js";
import { memoryEvents } from "./memory-events.js";
import { memoryEmails } from "./memory-emails.js";
import { memoryFlagSchedules } from "./memory-flag-schedules.js";
import { memoryFlagInsights } from "./memory-flag-insights.js";
import { memoryIdempotency } from "./memory-idempotency.js";
import {
  memoryApiKeys,
  memoryDeliveryReports,
  memoryDomains,
  memoryFlagHistory,
  memoryFlags,
  memorySettings,
  memorySuppressions,
  memoryWebhooks,
} from "./memory-row-stores.js";
import { memoryActivity, memoryExperiments } from "./memory-sums.js";
import { MemoryTable } from "./memory-table.js";
import { memoryTransactions } from "./memory-transaction.js";
import { memoryWebhookDeliveries } from "./memory-webhook-deliveries.js";
import { MemoryWebhookState } from "./memory-webhook-state.js";

/**
 * Storage in this process's memory, for tests and ephemeral use. Every contract of the port
 * holds within one process (each method runs without interleaving), but nothing survives a
 * restart and nothing is shared between processes: use SQLite for anything you cannot lose.
 */
export function memoryStorage(): Storage {
  const flags = new MemoryTable<FlagRecord>((flag) => flag.key, { by: (flag) => [flag.key] });
  const flagRevision = { value: 0 };
  const flagHistory = new MemoryTable<FlagHistoryEntry>((e) => e.id, { by: (e) => [e.id], descending: true });
  const suppressions = new MemoryTable<SuppressionRecord>((s) => s.email);
  const domains = new MemoryTable<SendingDomainRecord>((d) => d.id);
  const idempotency = memoryIdempotency();
  const events = memoryEvents(idempotency);
  const webhooks = new MemoryWebhookState();
  const flagSchedules = memoryFlagSchedules();
  /** Whether mail from this sending domain waits (paused by the reputation guard): the outbox's claim filter. */
  const paused = (name: string | undefined) =>
    name !== undefined && domains.find((d) => d.name === name)?.pausedAt !== undefined;
  const emails = memoryEmails(idempotency, webhooks, paused);
  return {
    name: "memory",
    flags: memoryFlags(flags, flagRevision),
    flagHistory: memoryFlagHistory(flagHistory),
    flagSchedules,
    flagInsights: memoryFlagInsights(),
    apiKeys: memoryApiKeys(),
    idempotency,
    events,
    experiments: memoryExperiments(events),
    emails,
    suppressions: memorySuppressions(suppressions),
    settings: memorySettings(),
    deliveryReports: memoryDeliveryReports(),
    webhooks: memoryWebhooks(webhooks),
    webhookDeliveries: memoryWebhookDeliveries(webhooks),
    domains: memoryDomains(domains),
    activity: memoryActivity(emails, events, webhooks),
    transaction: memoryTransactions({
      flags,
      flagRevision,
      flagHistory,
      flagSchedules,
      suppressions,
      domains,
      webhooks,
    }),
    async migrate() {},
    async close() {},
  };
}
