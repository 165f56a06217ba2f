import { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "./event-types.js";

/**
 * Wire shapes of the webhook routes and `fp.webhooks`, as the resend SDK sends them
 * (`CreateWebhookOptions`, `UpdateWebhookOptions`, `PaginationOptions`). docs/webhooks.md.
 */

const eventList = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .max(100)
  .transform((events) => [...new Set(events)]);

/** Longest endpoint URL accepted: far beyond any real one, short enough to index and log. */
const MAX_ENDPOINT_LENGTH = 2048;
const endpoint = z.string().min(1).max(MAX_ENDPOINT_LENGTH);

export const createWebhookSchema = z.strictObject({ endpoint, events: eventList });
export type CreateWebhookInput = z.input<typeof createWebhookSchema>;

export const updateWebhookSchema = z.strictObject({
  endpoint: endpoint.optional(),
  events: eventList.optional(),
  status: z.enum(["enabled", "disabled"]).optional(),
});
export type UpdateWebhookInput = z.input<typeof updateWebhookSchema>;
