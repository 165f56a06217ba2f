import type { Clock } from "../ports/clock.js";
import { notFound } from "../errors.js";
import { uuidv7 } from "../ids.js";
import type { Storage, WebhookChanges, WebhookRecord } from "../ports/storage/index.js";
import { type ListView, type PageQuery, readPage } from "../pagination.js";
import { parseInput } from "../validation.js";
import { checkEndpoint, type Resolver } from "./address-policy.js";
import type { WebhookWorker } from "./delivery-worker.js";
import {
  type CreateWebhookInput,
  createWebhookSchema,
  type UpdateWebhookInput,
  updateWebhookSchema,
} from "./schema.js";
import { newSigningSecret } from "./signing.js";
import {
  attemptView,
  eventLogView,
  eventView,
  summaryView,
  type WebhookAttemptView,
  type WebhookEventLogView,
  type WebhookEventView,
  type WebhookSummaryView,
  type WebhookView,
  webhookView,
} from "./views.js";

/** How long a rotated-out secret keeps signing beside the new one. */
const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * `fp.webhooks`: endpoints (create, list, get, update, remove, rotateSecret) and their deliveries
 * (events, event, attempts, replay). Answers are the wire shapes of the resend SDK, so the HTTP
 * routes only pass them on. Sending is the delivery worker's (delivery-worker.ts).
 */
export class WebhookService {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #policy: { allowPrivateNetworks: boolean; resolve: Resolver };
  /** Sends the deliveries; started by `fp.ready()` unless `webhooks.autoStart` is false. */
  readonly worker: WebhookWorker;

  constructor(
    storage: Storage,
    clock: Clock,
    policy: { allowPrivateNetworks: boolean; resolve: Resolver },
    worker: WebhookWorker,
  ) {
    this.#storage = storage;
    this.#clock = clock;
    this.#policy = policy;
    this.worker = worker;
  }

  /** Stores an endpoint subscribed to `events`; the answer holds its signing secret. */
  async create(input: CreateWebhookInput): Promise<{ object: "webhook"; id: string; signing_secret: string }> {
    const parsed = parseInput(createWebhookSchema, input);
    await checkEndpoint(parsed.endpoint, this.#policy);
    const now = this.#clock.now();
    const webhook: WebhookRecord = {
      id: uuidv7(this.#clock.now()),
      endpoint: parsed.endpoint,
      events: parsed.events,
      status: "enabled",
      secret: newSigningSecret(),
      createdAt: now,
      updatedAt: now,
    };
    await this.#storage.webhooks.insertWebhook(webhook);
    return { object: "webhook", id: webhook.id, signing_secret: webhook.secret };
  }

  /** Endpoints, newest first. */
  async list(query: PageQuery = {}): Promise<ListView<WebhookSummaryView>> {
    return readPage(query, (page) => this.#storage.webhooks.listWebhooks(page), summaryView);
  }

  async get(id: string): Promise<WebhookView> {
    return webhookView(await this.#webhook(id));
  }

  /** Changes the endpoint URL, the subscriptions (replaced as a whole) or the status. */
  async update(id: string, input: UpdateWebhookInput): Promise<{ object: "webhook"; id: string }> {
    const parsed = parseInput(updateWebhookSchema, input);
    if (parsed.endpoint !== undefined) await checkEndpoint(parsed.endpoint, this.#policy);
    const changes: WebhookChanges = { updatedAt: this.#clock.now() };
    if (parsed.endpoint !== undefined) changes.endpoint = parsed.endpoint;
    if (parsed.events !== undefined) changes.events = parsed.events;
    if (parsed.status !== undefined) changes.status = parsed.status;
    if (!(await this.#storage.webhooks.updateWebhook(id, changes))) throw notFound("Webhook", id);
    return { object: "webhook", id };
  }

  /** Removes the endpoint with its deliveries and attempts. */
  async remove(id: string): Promise<{ object: "webhook"; id: string; deleted: true }> {
    if (!(await this.#storage.webhooks.deleteWebhook(id))) throw notFound("Webhook", id);
    return { object: "webhook", id, deleted: true };
  }

  /** A new signing secret; the previous one keeps signing beside it for 24 h. */
  async rotateSecret(id: string): Promise<{ object: "webhook"; id: string; signing_secret: string }> {
    const now = this.#clock.now();
    const rotated = await this.#storage.webhooks.rotateSecret(id, {
      secret: newSigningSecret(),
      previousSecretExpiresAt: now + PREVIOUS_SECRET_TTL_MS,
      updatedAt: now,
    });
    if (!rotated) throw notFound("Webhook", id);
    return { object: "webhook", id, signing_secret: rotated.secret };
  }

  /** The endpoint's events (one delivery each) with their delivery status, newest first. */
  async events(id: string, query: PageQuery = {}): Promise<ListView<WebhookEventLogView>> {
    await this.#webhook(id);
    return readPage(query, (page) => this.#storage.webhookDeliveries.listDeliveries(id, page), eventLogView);
  }

  /** One event as delivered to this endpoint: status, next attempt and the payload. */
  async event(id: string, eventId: string): Promise<WebhookEventView> {
    const found = await this.#storage.webhookDeliveries.getDelivery(id, eventId);
    if (!found) throw notFound("Webhook event", eventId);
    return eventView(found.delivery, found.event);
  }

  /** The attempts to deliver one event to this endpoint, newest first. */
  async attempts(id: string, eventId: string, query: PageQuery = {}): Promise<ListView<WebhookAttemptView>> {
    if (!(await this.#storage.webhookDeliveries.getDelivery(id, eventId))) throw notFound("Webhook event", eventId);
    return readPage(query, (page) => this.#storage.webhookDeliveries.listAttempts(id, eventId, page), attemptView);
  }

  /** Sends the event again now, with its original `webhook-id`, whatever its status. */
  async replay(id: string, eventId: string): Promise<{ object: "webhook_event"; id: string }> {
    const replayed = await this.#storage.webhookDeliveries.replayDelivery(id, eventId, this.#clock.now());
    if (!replayed) throw notFound("Webhook event", eventId);
    this.worker.wake();
    return { object: "webhook_event", id: eventId };
  }

  async #webhook(id: string): Promise<WebhookRecord> {
    const webhook = await this.#storage.webhooks.getWebhook(id);
    if (!webhook) throw notFound("Webhook", id);
    return webhook;
  }
}
