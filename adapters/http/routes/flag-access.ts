import { refuseQuery } from "../query.js";
import type { Route } from "../types.js";

/**
 * `GET /v1/flags/_access`: the scopes of the key that asks (never the key itself), so a client
 * such as the dashboard offers only what the key may do (no live switch for a read-only key).
 * Scope `flags:read`, the least any flag page needs; `_access` cannot be a flag key (keys start
 * with a letter or digit), so it never shadows `GET /v1/flags/{key}`. See docs/api.md.
 */
export function flagAccessRoutes(): Route[] {
  return [
    {
      method: "GET",
      path: "/v1/flags/_access",
      scope: "flags:read",
      style: "data",
      body: false,
      async handle(ctx) {
        refuseQuery(ctx.query);
        return { status: 200, body: { data: { scopes: [...ctx.apiKey.scopes] } } };
      },
    },
  ];
}
