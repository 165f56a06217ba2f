import type { CreateScheduleInput, Flagpost } from "../../../src/internal.js";
import { nextLink, queryObject } from "../query.js";
import type { Route } from "../types.js";

/**
 * Scheduled flag changes (docs/api.md "Flag schedules", docs/flags.md "Scheduled changes"):
 * create and list per flag, delete one. Applied by the schedule worker of whichever process
 * claims them first.
 */
export function flagScheduleRoutes(fp: Flagpost): Route[] {
  const base = { style: "data" as const };
  return [
    {
      ...base,
      method: "POST",
      path: "/v1/flags/:key/schedules",
      scope: "flags:write",
      body: true,
      async handle(ctx) {
        const key = ctx.params.key!;
        const schedule = await fp.flags.schedules.create(key, ctx.body as CreateScheduleInput, {
          actor: { type: "api_key", id: ctx.apiKey.id, name: ctx.apiKey.name },
        });
        return {
          status: 201,
          body: { data: schedule },
          headers: { location: ctx.href(`/v1/flags/${encodeURIComponent(key)}/schedules/${schedule.id}`) },
        };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/flags/:key/schedules",
      scope: "flags:read",
      body: false,
      async handle(ctx) {
        const key = ctx.params.key!;
        const page = await fp.flags.schedules.list(key, queryObject(ctx.query));
        const headers: Record<string, string> = {};
        if (page.nextCursor) {
          const limit = ctx.query.get("limit") ?? undefined;
          const status = ctx.query.get("status") ?? undefined;
          headers.link = nextLink(
            ctx.href(`/v1/flags/${encodeURIComponent(key)}/schedules`, { status, limit, cursor: page.nextCursor }),
          );
        }
        return { status: 200, body: { data: page.data }, headers };
      },
    },
    {
      ...base,
      method: "DELETE",
      path: "/v1/flags/:key/schedules/:id",
      scope: "flags:write",
      body: false,
      async handle(ctx) {
        await fp.flags.schedules.delete(ctx.params.key!, ctx.params.id!);
        return { status: 204 };
      },
    },
  ];
}
