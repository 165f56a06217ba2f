import type { Flagpost } from "../../src/flagpost.js";
import type { Logger } from "../../src/ports/logger.js";
import { createDashboard } from "./dashboard/serve.js";
import type { HttpOptions } from "./handler.js";
import { createMetricsEndpoint, type RequestMetrics } from "./metrics.js";
import type { ofrepCors } from "./ofrep/cors.js";
import { ofrepEventStream } from "./ofrep/event-stream.js";
import { FlagsVersion } from "./ofrep/flags-version.js";
import { createProbes } from "./probes.js";
import type { HttpRequest, HttpResponse } from "./types.js";
import { createUnsubscribePage } from "./unsubscribe-page.js";

type PublicAnswer = (request: HttpRequest) => HttpResponse | Promise<HttpResponse> | undefined;

/**
 * What the handler answers before any API key is asked for: the dashboard's static files (the
 * page asks the user for a key), the probes, `/metrics` (it checks its own key, or is public by
 * setting), the unsubscribe link and the OFREP event stream (a signed token is the credential of
 * each) and CORS preflights for `/ofrep/`. Undefined for every other request.
 */
export function publicAnswers(
  fp: Flagpost,
  logger: Logger,
  options: HttpOptions,
  requestMetrics: RequestMetrics,
  cors: ReturnType<typeof ofrepCors>,
): PublicAnswer {
  const answers: PublicAnswer[] = [];
  if (options.dashboard !== false) answers.push(createDashboard(options.dashboard));
  if (options.probes !== false) answers.push(createProbes(fp, logger, options.probes));
  if (options.metrics !== false) answers.push(createMetricsEndpoint(fp, requestMetrics, options.metrics));
  answers.push(createUnsubscribePage(fp), (request) => cors.preflight(request));
  if (options.ofrepStreams !== false)
    answers.push(ofrepEventStream(fp, new FlagsVersion(fp), options.ofrepStreams ?? {}, cors.decorate));
  return (request) => {
    for (const answer of answers) {
      const response = answer(request);
      if (response) return response;
    }
    return undefined;
  };
}
