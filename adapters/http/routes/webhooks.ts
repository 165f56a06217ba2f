import type { CreateWebhookInput, Flagpost, PageQuery, UpdateWebhookInput } from "../../../src/internal.js";
import { queryObject } from "../query.js";
import type { Route } from "../types.js";

/**
 * docs/api.md "Webhooks": Resend's webhook routes (the resend SDK's `webhooks.*`), answered in its
 * shapes with its error body, all with scope full_access. `fp.webhooks` validates and decides.
 */
export function webhookRoutes(fp: Flagpost): Route[] {
  const base = { style: "resend" as const, scope: "full_access" as const };
  const hooks = fp.webhooks;
  return [
    {
      ...base,
      method: "POST",
      path: "/v1/webhooks",
      body: true,
      async handle(ctx) {
        return { status: 201, body: await hooks.create((ctx.body ?? {}) as CreateWebhookInput) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/webhooks",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await hooks.list(queryObject(ctx.query) as PageQuery) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/webhooks/:id",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await hooks.get(ctx.params.id!) };
      },
    },
    {
      ...base,
      method: "PATCH",
      path: "/v1/webhooks/:id",
      body: true,
      async handle(ctx) {
        return { status: 200, body: await hooks.update(ctx.params.id!, (ctx.body ?? {}) as UpdateWebhookInput) };
      },
    },
    {
      ...base,
      method: "DELETE",
      path: "/v1/webhooks/:id",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await hooks.remove(ctx.params.id!) };
      },
    },
    {
      ...base,
      method: "POST",
      path: "/v1/webhooks/:id/signing-secret/rotate",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await hooks.rotateSecret(ctx.params.id!) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/webhooks/:id/events",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await hooks.events(ctx.params.id!, queryObject(ctx.query) as PageQuery) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/webhooks/:id/events/:eventId",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await hooks.event(ctx.params.id!, ctx.params.eventId!) };
      },
    },
    {
      ...base,
      method: "POST",
      path: "/v1/webhooks/:id/events/:eventId/replay",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await hooks.replay(ctx.params.id!, ctx.params.eventId!) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/webhooks/:id/events/:eventId/attempts",
      body: false,
      async handle(ctx) {
        const query = queryObject(ctx.query) as PageQuery;
        return { status: 200, body: await hooks.attempts(ctx.params.id!, ctx.params.eventId!, query) };
      },
    },
  ];
}
