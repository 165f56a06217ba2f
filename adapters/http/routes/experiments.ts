import type { ExperimentResultsInput } from "../../../src/experiments/index.js";
import type { Flagpost } from "../../../src/flagpost.js";
import type { HeavyReads } from "../heavy-reads.js";
import { queryObject } from "../query.js";
import type { Route } from "../types.js";

/** docs/experiments.md: results read events, hence the `events:read` scope. */
export function experimentRoutes(fp: Flagpost, heavy: HeavyReads): Route[] {
  return [
    {
      style: "data",
      method: "GET",
      path: "/v1/experiments/:id/results",
      scope: "events:read",
      body: false,
      handle: (ctx) =>
        heavy.run(ctx, async () => {
          const results = await fp.experiments.results(
            ctx.params.id!,
            queryObject(ctx.query) as unknown as ExperimentResultsInput,
          );
          return { status: 200, body: { data: results } };
        }),
    },
  ];
}
