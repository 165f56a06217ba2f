import { type AcceptedEvent, batchBodySchema, type TrackEventInput } from "../../../src/events/index.js";
import type { Flagpost } from "../../../src/flagpost.js";
import { parseShape } from "../../../src/validation.js";
import { nextLink, queryObject } from "../query.js";
import { idempotencyOf } from "../idempotency.js";
import { type HeavyReads, isHeavyEventQuery } from "../heavy-reads.js";
import { routeTable } from "../route-table.js";
import type { Route, RouteContext, RouteResult } from "../types.js";

/** POST /v1/events/batch takes up to 1,000 events in at most 5 MiB (docs/api.md). */
export const EVENT_BATCH_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * `{"data":{"id":…,"status":…}}`, as JSON.stringify({data: accepted}) writes it, without walking
 * an object for a body of two fixed keys (one event's 202 is written on every track).
 */
function acceptedJson(accepted: AcceptedEvent): string {
  return `{"data":{"id":${JSON.stringify(accepted.id)},"status":${JSON.stringify(accepted.status)}}}`;
}

/**
 * docs/api.md "Events": camelCase, every success wrapped as {data}; writes answer 202 once stored.
 * The handlers are the hot path: each builds its result itself, with no wrapper around it.
 */
export function eventRoutes(fp: Flagpost, heavy: HeavyReads): Route[] {
  return routeTable(
    { style: "data", scope: "events:write" },
    {
      "POST /v1/events": {
        body: true,
        async handle(ctx) {
          const accepted = await fp.events.track(ctx.body as TrackEventInput, idempotencyOf(ctx));
          return { status: 202, json: acceptedJson(accepted) };
        },
      },
      "POST /v1/events/batch": {
        body: true,
        bodyLimit: EVENT_BATCH_BODY_LIMIT,
        async handle(ctx) {
          // One validation: the envelope's shape here, the list and each event in trackBatch, which
          // walks every event once (parseInput would walk the whole body first).
          const body = parseShape(batchBodySchema, ctx.body);
          const accepted = await fp.events.trackBatch(body.events as TrackEventInput[], idempotencyOf(ctx));
          return { status: 202, body: { data: accepted } };
        },
      },
      "GET /v1/events": {
        scope: "events:read",
        async handle(ctx) {
          const query = queryObject(ctx.query);
          if (isHeavyEventQuery(query, fp.clock.now())) return heavy.run(ctx, () => readEvents(ctx, query));
          return readEvents(ctx, query);
        },
      },
    },
  );

  async function readEvents(ctx: RouteContext, query: Record<string, string>): Promise<RouteResult> {
    const page = await fp.events.query(query);
    const headers: Record<string, string> = {};
    if (page.nextCursor) {
      const { userId, event, from, to, limit } = query;
      headers.link = nextLink(ctx.href("/v1/events", { userId, event, from, to, limit, cursor: page.nextCursor }));
    }
    return { status: 200, body: { data: page.data }, headers };
  }
}
