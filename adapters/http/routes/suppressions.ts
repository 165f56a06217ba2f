import type { Flagpost } from "../../../src/flagpost.js";
import type { ListSuppressionsInput } from "../../../src/emails/index.js";
import { queryObject } from "../query.js";
import { routeTable } from "../route-table.js";
import type { Route } from "../types.js";

/**
 * Resend's `suppressions` resource (the resend SDK's types are the contract): reads need
 * `emails:read`, changes `emails:send`. No business rule lives here: SuppressionService decides.
 */
export function suppressionRoutes(fp: Flagpost): Route[] {
  const suppressions = fp.suppressions;
  return routeTable(
    { style: "resend", scope: "emails:send" },
    {
      "POST /v1/suppressions": { body: true, answer: (ctx) => suppressions.add(ctx.body as { email: string }) },
      "GET /v1/suppressions": {
        scope: "emails:read",
        answer: (ctx) => suppressions.list(queryObject(ctx.query) as ListSuppressionsInput),
      },
      "POST /v1/suppressions/batch/add": {
        body: true,
        answer: (ctx) => suppressions.addBatch(ctx.body as { emails: string[] }),
      },
      "POST /v1/suppressions/batch/remove": {
        body: true,
        answer: (ctx) => suppressions.removeBatch(ctx.body as { emails: string[] }),
      },
      "GET /v1/suppressions/:id": { scope: "emails:read", answer: (ctx) => suppressions.get(ctx.params.id!) },
      "DELETE /v1/suppressions/:id": { answer: (ctx) => suppressions.remove(ctx.params.id!) },
    },
  );
}
