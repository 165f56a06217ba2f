import type {
  PageRequest,
  SecretRotation,
  WebhookChanges,
  WebhookRecord,
  WebhookRepository,
} from "../ports/storage/index.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";
import { copy } from "./memory-table.js";

export class MemoryWebhookRepository implements WebhookRepository {
  constructor(private readonly state: MemoryWebhookState) {}

  async insertWebhook(webhook: WebhookRecord): Promise<void> {
    this.state.webhooks.insert([webhook], (id) => `A webhook with id "${id}" already exists`);
  }

  async getWebhook(id: string): Promise<WebhookRecord | undefined> {
    return this.state.webhooks.read(id);
  }

  async listWebhooks(page: PageRequest): Promise<WebhookRecord[]> {
    return this.state.webhooks.page(page);
  }

  async updateWebhook(
    id: string,
    { endpoint, events, status, updatedAt }: WebhookChanges,
  ): Promise<WebhookRecord | undefined> {
    const webhook = this.state.webhooks.get(id);
    if (!webhook) return undefined;
    if (endpoint !== undefined) webhook.endpoint = endpoint;
    if (events !== undefined) webhook.events = [...events];
    if (status !== undefined) webhook.status = status;
    if (status === "enabled") delete webhook.failingSince;
    webhook.updatedAt = updatedAt;
    return copy(webhook);
  }

  async deleteWebhook(id: string): Promise<boolean> {
    if (!this.state.webhooks.delete(id)) return false;
    for (const table of [this.state.deliveries, this.state.attempts])
      for (const row of [...table.where((r) => r.webhookId === id)]) table.delete(row.id);
    return true;
  }

  async rotateSecret(id: string, rotation: SecretRotation): Promise<WebhookRecord | undefined> {
    const webhook = this.state.webhooks.get(id);
    if (!webhook) return undefined;
    const { secret, previousSecretExpiresAt, updatedAt } = rotation;
    return copy(Object.assign(webhook, { previousSecret: webhook.secret, previousSecretExpiresAt, secret, updatedAt }));
  }
}
