import type { Flagpost, ListSuppressionsInput } from "../../../src/internal.js";
import { queryObject } from "../query.js";
import type { Route } from "../types.js";

/**
 * Resend's `suppressions` resource (the resend SDK's types are the contract): reads need
 * `emails:read`, changes `emails:send`. No business rule lives here: SuppressionService decides.
 */
export function suppressionRoutes(fp: Flagpost): Route[] {
  const base = { style: "resend" as const };
  return [
    {
      ...base,
      method: "POST",
      path: "/v1/suppressions",
      scope: "emails:send",
      body: true,
      async handle(ctx) {
        return { status: 200, body: await fp.suppressions.add(ctx.body as { email: string }) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/suppressions",
      scope: "emails:read",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await fp.suppressions.list(queryObject(ctx.query) as ListSuppressionsInput) };
      },
    },
    {
      ...base,
      method: "POST",
      path: "/v1/suppressions/batch/add",
      scope: "emails:send",
      body: true,
      async handle(ctx) {
        return { status: 200, body: await fp.suppressions.addBatch(ctx.body as { emails: string[] }) };
      },
    },
    {
      ...base,
      method: "POST",
      path: "/v1/suppressions/batch/remove",
      scope: "emails:send",
      body: true,
      async handle(ctx) {
        return { status: 200, body: await fp.suppressions.removeBatch(ctx.body as { emails: string[] }) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/suppressions/:id",
      scope: "emails:read",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await fp.suppressions.get(ctx.params.id!) };
      },
    },
    {
      ...base,
      method: "DELETE",
      path: "/v1/suppressions/:id",
      scope: "emails:send",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await fp.suppressions.remove(ctx.params.id!) };
      },
    },
  ];
}
