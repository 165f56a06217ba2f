import { WEBHOOK_EVENT_TYPES } from "../../../src/webhooks/index.js";

/**
 * The dashboard's copy of the webhook event types (src/webhooks/event-types.ts), built like the
 * operator table (operator-table.ts): the server serves `public/webhook-event-types.js` from the
 * list itself, the file on disk holds the same text for the browser tests, and
 * test/dashboard/serve.test.ts fails when it falls behind.
 */

export const WEBHOOK_EVENT_TYPES_FILE = "webhook-event-types.js";

export function webhookEventTypesScript(): string {
  return (
    "// Generated from src/webhooks/event-types.ts by adapters/http/dashboard/webhook-event-types.ts: do not edit.\n" +
    `export const WEBHOOK_EVENT_TYPES = ${JSON.stringify(WEBHOOK_EVENT_TYPES)};\n`
  );
}
