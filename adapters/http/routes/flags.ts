import { type CreateFlagInput, type Flagpost, type UpdateFlagInput } from "../../../src/internal.js";
import { nextLink, queryObject } from "../query.js";
import type { Route, RouteContext } from "../types.js";

/** The history's actor for a request: the API key that made it. */
function actorOf(ctx: RouteContext) {
  return { actor: { type: "api_key" as const, id: ctx.apiKey.id, name: ctx.apiKey.name } };
}

/** docs/api.md "Flags": camelCase, every success wrapped as {data}. */
export function flagRoutes(fp: Flagpost): Route[] {
  const base = { style: "data" as const };
  return [
    {
      ...base,
      method: "GET",
      path: "/v1/flags",
      scope: "flags:read",
      body: false,
      async handle(ctx) {
        const page = await fp.flags.list(queryObject(ctx.query));
        const headers: Record<string, string> = {};
        if (page.nextCursor) {
          const limit = ctx.query.get("limit") ?? undefined;
          headers.link = nextLink(ctx.href("/v1/flags", { limit, cursor: page.nextCursor }));
        }
        return { status: 200, body: { data: page.data }, headers };
      },
    },
    {
      ...base,
      method: "POST",
      path: "/v1/flags",
      scope: "flags:write",
      body: true,
      async handle(ctx) {
        const flag = await fp.flags.create(ctx.body as CreateFlagInput, actorOf(ctx));
        return {
          status: 201,
          body: { data: flag },
          headers: { location: ctx.href(`/v1/flags/${encodeURIComponent(flag.key)}`) },
        };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/flags/:key",
      scope: "flags:read",
      body: false,
      async handle(ctx) {
        return { status: 200, body: { data: await fp.flags.get(ctx.params.key!) } };
      },
    },
    {
      ...base,
      method: "PATCH",
      path: "/v1/flags/:key",
      scope: "flags:write",
      body: true,
      async handle(ctx) {
        return {
          status: 200,
          body: { data: await fp.flags.update(ctx.params.key!, ctx.body as UpdateFlagInput, actorOf(ctx)) },
        };
      },
    },
    {
      ...base,
      method: "DELETE",
      path: "/v1/flags/:key",
      scope: "flags:write",
      body: false,
      async handle(ctx) {
        await fp.flags.delete(ctx.params.key!, actorOf(ctx));
        return { status: 204 };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/flags/:key/history",
      scope: "flags:read",
      body: false,
      async handle(ctx) {
        const key = ctx.params.key!;
        const page = await fp.flags.history(key, queryObject(ctx.query));
        const headers: Record<string, string> = {};
        if (page.nextCursor) {
          const limit = ctx.query.get("limit") ?? undefined;
          headers.link = nextLink(
            ctx.href(`/v1/flags/${encodeURIComponent(key)}/history`, { limit, cursor: page.nextCursor }),
          );
        }
        return { status: 200, body: { data: page.data }, headers };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/flags/:key/insights",
      scope: "flags:read",
      body: false,
      async handle(ctx) {
        return { status: 200, body: { data: await fp.flagInsights.get(ctx.params.key!, queryObject(ctx.query)) } };
      },
    },
    {
      ...base,
      method: "POST",
      path: "/v1/flags/:key/evaluate",
      fromMemory: true,
      scope: "flags:evaluate",
      body: true,
      async handle(ctx) {
        return { status: 200, body: { data: await fp.flags.evaluateCurrent(ctx.params.key!, ctx.body) } };
      },
    },
  ];
}
