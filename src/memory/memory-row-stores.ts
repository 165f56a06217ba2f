import { FlagpostError } from "../errors.js";
import type {
  ApiKeyRecord,
  ApiKeyRepository,
  DeliveryReportRepository,
  DomainRepository,
  FlagHistoryEntry,
  FlagHistoryRepository,
  FlagRecord,
  FlagRepository,
  SendingDomainRecord,
  SettingsRepository,
  SuppressionRecord,
  SuppressionRepository,
  UnmatchedReportRecord,
  WebhookRepository,
} from "../ports/storage/index.js";
import { copy, MemoryTable } from "./memory-table.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";

// The repositories that only store and read rows, each over one MemoryTable. A method runs
// without awaiting between its check and its write, so each is atomic in this process.

/** Settings: the first value stored under a name stays. */
export function memorySettings(): SettingsRepository {
  const values = new Map<string, string>();
  return {
    async getOrCreateSetting(name, initial) {
      if (!values.has(name)) values.set(name, initial);
      return values.get(name)!;
    },
  };
}

export function memoryDeliveryReports(): DeliveryReportRepository {
  const unmatched = new MemoryTable<UnmatchedReportRecord>((r) => r.id);
  return {
    recordUnmatchedReports: async (reports) => unmatched.insert(reports, () => "A report with that id already exists"),
    listUnmatchedReports: async (page) => unmatched.page(page),
  };
}

export function memoryApiKeys(): ApiKeyRepository {
  const keys = new MemoryTable<ApiKeyRecord>((r) => r.id, { by: (r) => [r.createdAt, r.id] });
  return {
    async insert(record) {
      const taken = "That API key already exists";
      if (keys.find((r) => r.hash === record.hash)) throw new FlagpostError("conflict", taken);
      keys.insert([record], () => taken);
    },
    findByHash: async (hash) => keys.readWhere((r) => r.hash === hash),
    findById: async (id) => keys.read(id),
    list: async () => keys.pageAfter(undefined, Infinity),
    async revoke(id, at) {
      const record = keys.get(id);
      if (record) record.revokedAt ??= at;
      return record !== undefined;
    },
  };
}

/** Flags, read here and written by a committing memory transaction, which grows `revision.value`. */
export function memoryFlags(flags: MemoryTable<FlagRecord>, revision: { value: number }): FlagRepository {
  return {
    get: async (key) => flags.read(key),
    list: async ({ after, limit }) => flags.pageAfter(after === undefined ? undefined : [after], limit),
    revision: async () => revision.value,
  };
}

/** The history table, newest first: the memory transaction appends to `entries` as it commits. */
export function memoryFlagHistory(entries: MemoryTable<FlagHistoryEntry>): FlagHistoryRepository {
  return {
    list: async (flagKey, { before, limit }) =>
      entries.pageAfter(before === undefined ? undefined : [before], limit, (e) => e.flagKey === flagKey),
  };
}

/** Webhook endpoints; deleting one deletes its deliveries and their attempts. */
export function memoryWebhooks(state: MemoryWebhookState): WebhookRepository {
  const { webhooks } = state;
  return {
    insertWebhook: async (webhook) => webhooks.insert([webhook], (id) => `A webhook with id "${id}" already exists`),
    getWebhook: async (id) => webhooks.read(id),
    listWebhooks: async (page) => webhooks.page(page),
    async updateWebhook(id, { endpoint, events, status, updatedAt }) {
      const webhook = webhooks.get(id);
      if (!webhook) return undefined;
      if (endpoint !== undefined) webhook.endpoint = endpoint;
      if (events !== undefined) webhook.events = [...events];
      if (status !== undefined) webhook.status = status;
      if (status === "enabled") delete webhook.failingSince;
      webhook.updatedAt = updatedAt;
      return copy(webhook);
    },
    async deleteWebhook(id) {
      if (!webhooks.delete(id)) return false;
      state.deliveries.deleteWhere((r) => r.webhookId === id);
      state.attempts.deleteWhere((r) => r.webhookId === id);
      return true;
    },
    async rotateSecret(id, { secret, previousSecretExpiresAt, updatedAt }) {
      const webhook = webhooks.get(id);
      if (!webhook) return undefined;
      return copy(
        Object.assign(webhook, { previousSecret: webhook.secret, previousSecretExpiresAt, secret, updatedAt }),
      );
    },
  };
}

/** Sending domains by id; a memory transaction replaces rows (memory-transaction.ts). */
export function memoryDomains(domains: MemoryTable<SendingDomainRecord>): DomainRepository {
  return {
    async insertDomain(domain) {
      const conflict = `The domain "${domain.name}" already exists`;
      if (domains.find((d) => d.name === domain.name)) throw new FlagpostError("conflict", conflict);
      domains.insert([domain], () => conflict);
    },
    getDomain: async (id) => domains.read(id),
    getDomainByName: async (name) => domains.readWhere((d) => d.name === name),
    listDomains: async (page) => domains.page(page),
    deleteDomain: async (id) => domains.delete(id),
    listDomainsToRecheck: async (checkedBefore, limit) =>
      [...domains.where((d) => d.status !== "not_started" && d.checkedAt !== undefined && d.checkedAt < checkedBefore)]
        .sort((a, b) => a.checkedAt! - b.checkedAt!)
        .slice(0, limit)
        .map(copy),
  };
}

/** The suppression list by address, written only by a committing memory transaction; soft bounces beside it. */
export function memorySuppressions(suppressions: MemoryTable<SuppressionRecord>): SuppressionRepository {
  /** Soft bounces by address, each an email id and when. */
  const softBounces = new Map<string, Map<string, number>>();
  return {
    getSuppression: async (idOrEmail) =>
      suppressions.read(idOrEmail) ?? suppressions.readWhere((s) => s.id === idOrEmail),
    listSuppressions: async ({ origin }, page) =>
      suppressions.page(
        page,
        (s) => origin === undefined || s.origin === origin,
        (s) => s.id,
      ),
    async countSoftBounce(bounce, since) {
      const byEmail = softBounces.get(bounce.email) ?? new Map<string, number>();
      softBounces.set(bounce.email, byEmail);
      if (!byEmail.has(bounce.emailId)) byEmail.set(bounce.emailId, bounce.at);
      for (const [emailId, at] of byEmail) if (at < since) byEmail.delete(emailId);
      return byEmail.size;
    },
    suppressedAmong: async (emails) => [...new Set(emails)].filter((email) => suppressions.has(email)),
  };
}
