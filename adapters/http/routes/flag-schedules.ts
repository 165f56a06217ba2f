import type { CreateScheduleInput } from "../../../src/flags/schedules/index.js";
import type { Flagpost } from "../../../src/flagpost.js";
import { queryObject } from "../query.js";
import { pageResult, routeTable } from "../route-table.js";
import type { Route } from "../types.js";

/**
 * Scheduled flag changes (docs/api.md "Flag schedules", docs/flags.md "Scheduled changes"):
 * create and list per flag, delete one. Applied by the schedule worker of whichever process
 * claims them first.
 */
export function flagScheduleRoutes(fp: Flagpost): Route[] {
  const schedulesOf = (key: string) => `/v1/flags/${encodeURIComponent(key)}/schedules`;
  return routeTable(
    { style: "data" },
    {
      "POST /v1/flags/:key/schedules": {
        scope: "flags:write",
        body: true,
        async handle(ctx) {
          const key = ctx.params.key!;
          const schedule = await fp.flags.schedules.create(key, ctx.body as CreateScheduleInput, {
            actor: { type: "api_key", id: ctx.apiKey.id, name: ctx.apiKey.name },
          });
          const location = ctx.href(`${schedulesOf(key)}/${schedule.id}`);
          return { status: 201, body: { data: schedule }, headers: { location } };
        },
      },
      "GET /v1/flags/:key/schedules": {
        scope: "flags:read",
        async handle(ctx) {
          const key = ctx.params.key!;
          const page = await fp.flags.schedules.list(key, queryObject(ctx.query));
          return pageResult(ctx, page, schedulesOf(key), ["status", "limit"]);
        },
      },
      "DELETE /v1/flags/:key/schedules/:id": {
        scope: "flags:write",
        async handle(ctx) {
          await fp.flags.schedules.delete(ctx.params.key!, ctx.params.id!);
          return { status: 204 };
        },
      },
    },
  );
}
