import type { Flagpost } from "../../../src/flagpost.js";
import type { ReportSource } from "../../../src/ports/report-source.js";
import { storedSignatureChecks } from "../../../src/emails/index.js";
import type { Route } from "../types.js";
import { domainRoutes } from "./domains.js";
import { emailRoutes } from "./emails.js";
import { flagAccessRoutes } from "./flag-access.js";
import { flagSnapshotRoutes } from "./flag-snapshot.js";
import { flagStreamRoutes } from "./flag-stream.js";
import { eventRoutes } from "./events.js";
import { experimentRoutes } from "./experiments.js";
import { flagRoutes } from "./flags.js";
import { inboundRoutes } from "./inbound.js";
import { HeavyReads } from "../heavy-reads.js";
import { webhookRoutes } from "./webhooks.js";
import { ofrepRoutes } from "../ofrep/routes.js";
import type { OfrepStreamOptions } from "../ofrep/stream-links.js";
import { flagScheduleRoutes } from "./flag-schedules.js";
import { suppressionRoutes } from "./suppressions.js";
import { overviewRoutes } from "./overview.js";

/**
 * Every /v1 and /ofrep/ route. Each service contributes its own list; `inbound`: the report
 * sources to serve; `ofrepStreams`: the event-stream links of the OFREP bulk answer.
 */
export function allRoutes(
  fp: Flagpost,
  inbound?: readonly ReportSource[],
  ofrepStreams?: OfrepStreamOptions | false,
): Route[] {
  const heavy = new HeavyReads();
  // The snapshot, stream and access routes go first: the router takes the first match, and /v1/flags/:key would match them too.
  return [
    ...flagSnapshotRoutes(fp),
    ...flagStreamRoutes(fp),
    ...flagAccessRoutes(),
    ...ofrepRoutes(fp, ofrepStreams),
    ...flagRoutes(fp),
    ...flagScheduleRoutes(fp),
    ...eventRoutes(fp, heavy),
    ...experimentRoutes(fp, heavy),
    ...emailRoutes(fp),
    ...webhookRoutes(fp),
    ...suppressionRoutes(fp),
    ...domainRoutes(fp),
    ...overviewRoutes(fp),
    ...inboundRoutes(
      (reports) => fp.emails.applyReports(reports),
      storedSignatureChecks(fp.storage.idempotency, fp.clock),
      inbound,
    ),
  ];
}
