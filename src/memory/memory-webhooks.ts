import { FlagpostError } from "../errors.js";
import type {
  PageRequest,
  SecretRotation,
  WebhookChanges,
  WebhookRecord,
  WebhookRepository,
} from "../storage/index.js";
import { type MemoryWebhookState, pageOf } from "./memory-webhook-state.js";

export class MemoryWebhookRepository implements WebhookRepository {
  readonly #state: MemoryWebhookState;

  constructor(state: MemoryWebhookState) {
    this.#state = state;
  }

  async insertWebhook(webhook: WebhookRecord): Promise<void> {
    if (this.#state.webhooks.has(webhook.id))
      throw new FlagpostError("conflict", `A webhook with id "${webhook.id}" already exists`);
    this.#state.webhooks.set(webhook.id, structuredClone(webhook));
  }

  async getWebhook(id: string): Promise<WebhookRecord | undefined> {
    const webhook = this.#state.webhooks.get(id);
    return webhook && structuredClone(webhook);
  }

  async listWebhooks(page: PageRequest): Promise<WebhookRecord[]> {
    return pageOf([...this.#state.webhooks.values()], (w) => w.id, page);
  }

  async updateWebhook(id: string, changes: WebhookChanges): Promise<WebhookRecord | undefined> {
    const webhook = this.#state.webhooks.get(id);
    if (!webhook) return undefined;
    if (changes.endpoint !== undefined) webhook.endpoint = changes.endpoint;
    if (changes.events !== undefined) webhook.events = [...changes.events];
    if (changes.status !== undefined) webhook.status = changes.status;
    if (changes.status === "enabled") delete webhook.failingSince;
    webhook.updatedAt = changes.updatedAt;
    return structuredClone(webhook);
  }

  async deleteWebhook(id: string): Promise<boolean> {
    if (!this.#state.webhooks.delete(id)) return false;
    for (const [key, delivery] of this.#state.deliveries)
      if (delivery.webhookId === id) this.#state.deliveries.delete(key);
    const kept = this.#state.attempts.filter((a) => a.webhookId !== id);
    this.#state.attempts.splice(0, this.#state.attempts.length, ...kept);
    return true;
  }

  async rotateSecret(id: string, rotation: SecretRotation): Promise<WebhookRecord | undefined> {
    const webhook = this.#state.webhooks.get(id);
    if (!webhook) return undefined;
    webhook.previousSecret = webhook.secret;
    webhook.previousSecretExpiresAt = rotation.previousSecretExpiresAt;
    webhook.secret = rotation.secret;
    webhook.updatedAt = rotation.updatedAt;
    return structuredClone(webhook);
  }
}
