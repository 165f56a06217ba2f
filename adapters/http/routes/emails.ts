import type {
  BatchValidation,
  EmailEventRequest,
  SendEmailRequest,
  UpdateEmailRequest,
} from "../../../src/emails/index.js";
import type { Flagpost } from "../../../src/flagpost.js";
import type { PageQuery } from "../../../src/pagination.js";
import { idempotencyOf } from "../idempotency.js";
import { queryObject } from "../query.js";
import { routeTable } from "../route-table.js";
import type { Route } from "../types.js";

/** POST /v1/emails and /v1/emails/batch take up to 40 MiB: attachments travel base64 inside the JSON. */
export const EMAIL_BODY_LIMIT = 40 * 1024 * 1024;

/**
 * docs/api.md "Emails": snake_case bodies, the resource itself as the answer, Resend's error shape
 * (`{statusCode, name, message}`), and a JSON body on every response so the `resend` SDK can read
 * it. No business rule lives here: EmailService validates and decides.
 */
export function emailRoutes(fp: Flagpost): Route[] {
  const emails = fp.emails;
  const sends = { scope: "emails:send", body: true, bodyLimit: EMAIL_BODY_LIMIT } as const;
  return routeTable(
    { style: "resend", scope: "emails:read" },
    {
      "POST /v1/emails": { ...sends, answer: (ctx) => emails.send(ctx.body as SendEmailRequest, idempotencyOf(ctx)) },
      "POST /v1/emails/batch": {
        ...sends,
        answer(ctx) {
          const mode = (ctx.headers["x-batch-validation"]?.trim().toLowerCase() || "strict") as BatchValidation;
          return emails.sendBatch(ctx.body as SendEmailRequest[], { ...idempotencyOf(ctx), validation: mode });
        },
      },
      "GET /v1/emails": { answer: (ctx) => emails.list(queryObject(ctx.query) as PageQuery) },
      "PATCH /v1/emails/:id": {
        scope: "emails:send",
        body: true,
        answer: (ctx) => emails.update(ctx.params.id!, (ctx.body ?? {}) as UpdateEmailRequest),
      },
      // The resend SDK sends no body here (but a JSON Content-Type): nothing is read.
      "POST /v1/emails/:id/cancel": { scope: "emails:send", answer: (ctx) => emails.cancel(ctx.params.id!) },
      "GET /v1/emails/:id": { answer: (ctx) => emails.get(ctx.params.id!) },
      "GET /v1/emails/:id/events": {
        answer: async (ctx) => ({ object: "list", data: await emails.events(ctx.params.id!) }),
      },
      "POST /v1/emails/:id/events": {
        scope: "full_access",
        body: true,
        answer: (ctx) => emails.recordEvent(ctx.params.id!, (ctx.body ?? {}) as EmailEventRequest),
      },
    },
  );
}
