/** The seam adapters and the CLI use for webhook endpoints, signing and delivery. */
export { WEBHOOK_EVENT_TYPES } from "./event-types.js";
export type { CreateWebhookInput, UpdateWebhookInput } from "./schema.js";
export type { WebhookOptions } from "./webhooks.js";
