import { asLogger, type Logger } from "../../src/ports/logger.js";
import { ByteBudget } from "../../src/jobs/index.js";
import type { Flagpost } from "../../src/flagpost.js";
import type { ReportSource } from "../../src/ports/report-source.js";
import type { DashboardOptions } from "./dashboard/serve.js";
import { DEFAULT_BODY_BUDGET } from "./body-budget.js";
import { composeStages, type HandlerParts, handlerStages } from "./handler-stages.js";
import { KeyCheck } from "./key-check.js";
import { ANONYMOUS_DEFAULTS, DEFAULT_KEY_LIMIT, type RateLimitOptions, RateLimiter } from "./rate-limit.js";
import { SharedRateLimiter } from "./shared-rate-limit.js";
import { Router } from "./router.js";
import { allRoutes } from "./routes/index.js";
import type { ProbeOptions } from "./probes.js";
import { ofrepCors } from "./ofrep/cors.js";
import type { OfrepStreamOptions } from "./ofrep/stream-links.js";
import { type MetricsOptions, RequestMetrics } from "./metrics.js";
import { publicAnswers } from "./public-answers.js";
import { DEFAULT_REQUEST_LOG_SAMPLE, RequestLog, type RequestLogging } from "./request-log.js";
import { HrefCache } from "./route-run.js";
import type { HttpRequest, HttpResponse } from "./types.js";

export interface HttpOptions {
  /** Largest request body in bytes for routes without their own limit. Default 1 MiB. */
  bodyLimit?: number;
  /** Per-key token bucket; `false` turns it off (and its headers with it). */
  rateLimit?: RateLimitOptions | false;
  /**
   * Bytes of request bodies held in memory at once across all requests (default 96 MiB); past it
   * a request with a body gets 503 + Retry-After instead of being buffered. `false` turns it off.
   */
  bodyBudget?: number | false;
  /**
   * Request lines (method, path, status, duration) at info level: `"all"` (or `true`) one per
   * request; `"sampled"` every 5xx and one in `requestLogSample` of the rest, each with `sample`
   * (how many requests it stands for); `"off"` (or `false`, the default) none.
   */
  logRequests?: RequestLogging | boolean;
  /** With `logRequests: "sampled"`: one line per this many requests that are not 5xx. Default 100. */
  requestLogSample?: number;
  /** Where request and error lines go; defaults to the Flagpost instance's logger. */
  logger?: Logger;
  /** The flags dashboard: served at "/dashboard" unless `false`; `path` moves it. */
  dashboard?: DashboardOptions | false;
  /**
   * Delivery-report sources served at `/v1/inbound/{name}`: the providers of
   * `flagpost/inbound/providers` (`postmarkSource({user, password})`…) or an app's own ReportSource.
   * Any other name answers 404. Names must be unique (validation_error otherwise).
   */
  inbound?: readonly ReportSource[];
  /** `GET /health` and `GET /ready` at the mount point (adapters/http/probes.ts), unless `false`. */
  probes?: ProbeOptions | false;
  /** Origins allowed to call /ofrep/ from a browser (`FLAGPOST_CORS_ORIGINS`); none by default. */
  corsOrigins?: readonly string[];
  /**
   * OFREP event streams (docs/ofrep.md "Event streams"): bulk answers link to `GET
   * /ofrep/v1/stream`, which tells providers when to fetch again; `false` leaves them out (providers poll).
   */
  ofrepStreams?: OfrepStreamOptions | false;
  /** `GET /metrics` at the mount point (adapters/http/metrics.ts, docs/operations.md), unless `false`. */
  metrics?: MetricsOptions | false;
}

export { DEFAULT_REQUEST_LOG_SAMPLE, REQUEST_LOGGING, type RequestLogging } from "./request-log.js";

/** Handles a request, or returns undefined when the path is not flagpost's (the app's next handler). */
export type Handler = (request: HttpRequest) => Promise<HttpResponse | undefined>;

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * The HTTP core: auth, scopes, rate limit, routing, body limits and the error table of docs/api.md,
 * with no framework in sight. Order matters: the key is checked before anything else is looked
 * at, so an unauthenticated client learns nothing about what exists. The parts are made here from
 * the options; the request runs through the named stages of handler-stages.ts, composed once.
 */
export function createHandler(fp: Flagpost, options: HttpOptions = {}): Handler {
  return composeStages(handlerStages(handlerParts(fp, options)));
}

/** Everything the stages share, made once from the options. */
function handlerParts(fp: Flagpost, options: HttpOptions): HandlerParts {
  const router = new Router(allRoutes(fp, options.inbound, options.ofrepStreams));
  const cors = ofrepCors(options.corsOrigins ?? []);
  const limiter = options.rateLimit === false ? undefined : new RateLimiter(options.rateLimit ?? {}, fp.clock);
  const logger = options.logger ? asLogger(options.logger) : fp.logger;
  // Only with a store: without one the per-key check stays synchronous.
  const shared =
    limiter && options.rateLimit && options.rateLimit.store
      ? new SharedRateLimiter(
          options.rateLimit.store,
          options.rateLimit.burst ?? DEFAULT_KEY_LIMIT.burst,
          options.rateLimit.perSecond ?? DEFAULT_KEY_LIMIT.perSecond,
          limiter,
          logger,
          fp.clock,
        )
      : undefined;
  const anonymous =
    options.rateLimit === false
      ? undefined
      : new RateLimiter({ ...ANONYMOUS_DEFAULTS, ...options.rateLimit?.anonymous }, fp.clock);
  const requestMetrics = new RequestMetrics(options.metrics !== false);
  const budget =
    options.bodyBudget === false ? undefined : new ByteBudget(options.bodyBudget ?? DEFAULT_BODY_BUDGET, "bodyBudget");
  const logging: RequestLogging =
    options.logRequests === true ? "all" : options.logRequests === false ? "off" : (options.logRequests ?? "off");
  return {
    fp,
    router,
    keys: new KeyCheck({ fp, router, limiter, shared, anonymous }),
    limiter,
    anonymous,
    logger,
    routeParts: { bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, budget, logger, hrefs: new HrefCache() },
    cors,
    requestMetrics,
    requestLog: new RequestLog(logging, options.requestLogSample ?? DEFAULT_REQUEST_LOG_SAMPLE, logger),
    publicAnswer: publicAnswers(fp, logger, options, requestMetrics, cors),
  };
}
