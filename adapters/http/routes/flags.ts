import {
  type CreateFlagInput,
  flagHistoryJson,
  flagJson,
  flagSummaryJson,
  type UpdateFlagInput,
} from "../../../src/flags/index.js";
import type { Flagpost } from "../../../src/flagpost.js";
import { queryObject } from "../query.js";
import { pageResult, routeTable } from "../route-table.js";
import type { Route, RouteContext } from "../types.js";

/** The history's actor for a request: the API key that made it. */
function actorOf(ctx: RouteContext) {
  return { actor: { type: "api_key" as const, id: ctx.apiKey.id, name: ctx.apiKey.name } };
}

/** docs/api.md "Flags": camelCase, every success wrapped as {data}. */
export function flagRoutes(fp: Flagpost): Route[] {
  return routeTable(
    { style: "data" },
    {
      "GET /v1/flags": {
        scope: "flags:read",
        async handle(ctx) {
          const page = await fp.flags.list(queryObject(ctx.query));
          return pageResult(ctx, { ...page, data: page.data.map(flagSummaryJson) }, "/v1/flags", ["limit"]);
        },
      },
      "POST /v1/flags": {
        scope: "flags:write",
        body: true,
        async handle(ctx) {
          const flag = await fp.flags.create(ctx.body as CreateFlagInput, actorOf(ctx));
          const location = ctx.href(`/v1/flags/${encodeURIComponent(flag.key)}`);
          return { status: 201, body: { data: flagJson(flag) }, headers: { location } };
        },
      },
      "GET /v1/flags/:key": {
        scope: "flags:read",
        answer: async (ctx) => flagJson(await fp.flags.get(ctx.params.key!)),
      },
      "PATCH /v1/flags/:key": {
        scope: "flags:write",
        body: true,
        answer: async (ctx) =>
          flagJson(await fp.flags.update(ctx.params.key!, ctx.body as UpdateFlagInput, actorOf(ctx))),
      },
      "DELETE /v1/flags/:key": {
        scope: "flags:write",
        async handle(ctx) {
          await fp.flags.delete(ctx.params.key!, actorOf(ctx));
          return { status: 204 };
        },
      },
      "GET /v1/flags/:key/history": {
        scope: "flags:read",
        async handle(ctx) {
          const key = ctx.params.key!;
          const page = await fp.flags.history(key, queryObject(ctx.query));
          return pageResult(
            ctx,
            { ...page, data: page.data.map(flagHistoryJson) },
            `/v1/flags/${encodeURIComponent(key)}/history`,
            ["limit"],
          );
        },
      },
      "GET /v1/flags/:key/insights": {
        scope: "flags:read",
        answer: (ctx) => fp.flagInsights.get(ctx.params.key!, queryObject(ctx.query)),
      },
      // The hot path: a handler of its own, no wrapper around it.
      "POST /v1/flags/:key/evaluate": {
        fromMemory: true,
        scope: "flags:evaluate",
        body: true,
        async handle(ctx) {
          return { status: 200, body: { data: await fp.flags.evaluateCurrent(ctx.params.key!, ctx.body) } };
        },
      },
    },
  );
}
