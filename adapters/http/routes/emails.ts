import type {
  BatchValidation,
  EmailEventRequest,
  Flagpost,
  PageQuery,
  SendEmailRequest,
  UpdateEmailRequest,
} from "../../../src/internal.js";
import { idempotencyOf } from "../idempotency.js";
import { queryObject } from "../query.js";
import type { Route } from "../types.js";

/** POST /v1/emails and /v1/emails/batch take up to 40 MiB: attachments travel base64 inside the JSON. */
export const EMAIL_BODY_LIMIT = 40 * 1024 * 1024;

/**
 * docs/api.md "Emails": snake_case bodies, the resource itself as the answer, Resend's error shape
 * (`{statusCode, name, message}`), and a JSON body on every response so the `resend` SDK can read
 * it. No business rule lives here: EmailService validates and decides.
 */
export function emailRoutes(fp: Flagpost): Route[] {
  const base = { style: "resend" as const };
  return [
    {
      ...base,
      method: "POST",
      path: "/v1/emails",
      scope: "emails:send",
      body: true,
      bodyLimit: EMAIL_BODY_LIMIT,
      async handle(ctx) {
        return { status: 200, body: await fp.emails.send(ctx.body as SendEmailRequest, idempotencyOf(ctx)) };
      },
    },
    {
      ...base,
      method: "POST",
      path: "/v1/emails/batch",
      scope: "emails:send",
      body: true,
      bodyLimit: EMAIL_BODY_LIMIT,
      async handle(ctx) {
        const mode = (ctx.headers["x-batch-validation"]?.trim().toLowerCase() || "strict") as BatchValidation;
        return {
          status: 200,
          body: await fp.emails.sendBatch(ctx.body as SendEmailRequest[], { ...idempotencyOf(ctx), validation: mode }),
        };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/emails",
      scope: "emails:read",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await fp.emails.list(queryObject(ctx.query) as PageQuery) };
      },
    },
    {
      ...base,
      method: "PATCH",
      path: "/v1/emails/:id",
      scope: "emails:send",
      body: true,
      async handle(ctx) {
        return { status: 200, body: await fp.emails.update(ctx.params.id!, (ctx.body ?? {}) as UpdateEmailRequest) };
      },
    },
    {
      ...base,
      method: "POST",
      path: "/v1/emails/:id/cancel",
      scope: "emails:send",
      // The resend SDK sends no body here (but a JSON Content-Type): nothing is read.
      body: false,
      async handle(ctx) {
        return { status: 200, body: await fp.emails.cancel(ctx.params.id!) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/emails/:id",
      scope: "emails:read",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await fp.emails.get(ctx.params.id!) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/emails/:id/events",
      scope: "emails:read",
      body: false,
      async handle(ctx) {
        return { status: 200, body: { object: "list", data: await fp.emails.events(ctx.params.id!) } };
      },
    },
    {
      ...base,
      method: "POST",
      path: "/v1/emails/:id/events",
      scope: "full_access",
      body: true,
      async handle(ctx) {
        return {
          status: 200,
          body: await fp.emails.recordEvent(ctx.params.id!, (ctx.body ?? {}) as EmailEventRequest),
        };
      },
    },
  ];
}
