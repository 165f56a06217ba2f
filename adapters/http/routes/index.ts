import type { Flagpost } from "../../../src/internal.js";
import type { Route } from "../types.js";
import { emailRoutes } from "./emails.js";
import { flagSnapshotRoutes } from "./flag-snapshot.js";
import { eventRoutes } from "./events.js";
import { experimentRoutes } from "./experiments.js";
import { flagRoutes } from "./flags.js";
import { flagScheduleRoutes } from "./flag-schedules.js";

/** Every /v1 route. Each service contributes its own list. */
export function allRoutes(fp: Flagpost): Route[] {
  // The snapshot route goes first: the router takes the first match, and /v1/flags/:key would match it too.
  return [
    ...flagSnapshotRoutes(fp),
    ...flagRoutes(fp),
    ...flagScheduleRoutes(fp),
    ...eventRoutes(fp),
    ...experimentRoutes(fp),
    ...emailRoutes(fp),
  ];
}
