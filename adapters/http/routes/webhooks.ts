import type { CreateWebhookInput, UpdateWebhookInput } from "../../../src/webhooks/index.js";
import type { Flagpost } from "../../../src/flagpost.js";
import type { PageQuery } from "../../../src/pagination.js";
import { queryObject } from "../query.js";
import { routeTable } from "../route-table.js";
import type { Route, RouteContext } from "../types.js";
import { resendResourceRoutes } from "./resend-resource.js";

/**
 * docs/api.md "Webhooks": Resend's webhook routes (the resend SDK's `webhooks.*`), answered in its
 * shapes with its error body, all with scope full_access. `fp.webhooks` validates and decides.
 */
export function webhookRoutes(fp: Flagpost): Route[] {
  const hooks = fp.webhooks;
  const page = (ctx: RouteContext) => queryObject(ctx.query) as PageQuery;
  return routeTable(
    { style: "resend", scope: "full_access" },
    {
      ...resendResourceRoutes<CreateWebhookInput, UpdateWebhookInput>("/v1/webhooks", hooks),
      "POST /v1/webhooks/:id/signing-secret/rotate": { answer: (ctx) => hooks.rotateSecret(ctx.params.id!) },
      "GET /v1/webhooks/:id/events": { answer: (ctx) => hooks.events(ctx.params.id!, page(ctx)) },
      "GET /v1/webhooks/:id/events/:eventId": { answer: (ctx) => hooks.event(ctx.params.id!, ctx.params.eventId!) },
      "POST /v1/webhooks/:id/events/:eventId/replay": {
        answer: (ctx) => hooks.replay(ctx.params.id!, ctx.params.eventId!),
      },
      "GET /v1/webhooks/:id/events/:eventId/attempts": {
        answer: (ctx) => hooks.attempts(ctx.params.id!, ctx.params.eventId!, page(ctx)),
      },
    },
  );
}
