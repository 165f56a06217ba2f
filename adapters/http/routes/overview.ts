import type { Flagpost } from "../../../src/flagpost.js";
import { hasScope } from "../../../src/auth/index.js";
import { refuseQuery } from "../query.js";
import type { Route } from "../types.js";

/**
 * `GET /v1/overview` (docs/api.md "Overview"): counts for the dashboard's Overview page. Scope
 * `emails:read`: most of it is about email, and the rest are counts that name no user, event or
 * property. Failing endpoints carry their URL only for a key that may read webhooks
 * (`full_access`, as every webhook route needs); others get their ids and times.
 */
export function overviewRoutes(fp: Flagpost): Route[] {
  return [
    {
      style: "data",
      method: "GET",
      path: "/v1/overview",
      scope: "emails:read",
      body: false,
      async handle(ctx) {
        refuseQuery(ctx.query);
        const withEndpoints = hasScope(ctx.apiKey.scopes, "full_access");
        return { status: 200, body: { data: await fp.overview.read({ withEndpoints }) } };
      },
    },
  ];
}
