import {
  type ApiKeyInfo,
  asLogger,
  ByteBudget,
  errorFields,
  FlagpostError,
  type Flagpost,
  type Logger,
  type ReportSource,
} from "../../src/internal.js";
import type { DashboardOptions } from "./dashboard/serve.js";
import { errorResponse } from "./error-body.js";
import { DEFAULT_BODY_BUDGET } from "./body-budget.js";
import { addressOf, KeyCheck } from "./key-check.js";
import { ANONYMOUS_DEFAULTS, DEFAULT_KEY_LIMIT, type RateLimitOptions, RateLimiter } from "./rate-limit.js";
import { SharedRateLimiter } from "./shared-rate-limit.js";
import { type RouteMatch, Router } from "./router.js";
import { allRoutes } from "./routes/index.js";
import { respondToProvider } from "./provider-request.js";
import type { ProbeOptions } from "./probes.js";
import { OFREP_PREFIX, ofrepCors } from "./ofrep/cors.js";
import type { OfrepStreamOptions } from "./ofrep/stream-links.js";
import { type MetricsOptions, RequestMetrics } from "./metrics.js";
import { publicAnswers } from "./public-answers.js";
import { DEFAULT_REQUEST_LOG_SAMPLE, RequestLog, type RequestLogging } from "./request-log.js";
import { bearerToken } from "./request-json.js";
import { HrefCache, runRoute } from "./route-run.js";
import { type HttpRequest, type HttpResponse, type KeyRoute, PROVIDER_AUTH, type ProviderRoute } from "./types.js";

type Headers = Record<string, string>;
type Answer = HttpResponse | Promise<HttpResponse>;

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
 * at, so an unauthenticated client learns nothing about what exists.
 */
export function createHandler(fp: Flagpost, options: HttpOptions = {}): Handler {
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
  const keys = new KeyCheck({ fp, router, limiter, shared, anonymous });
  const requestMetrics = new RequestMetrics(options.metrics !== false);
  const publicAnswer = publicAnswers(fp, logger, options, requestMetrics, cors);
  const budget =
    options.bodyBudget === false ? undefined : new ByteBudget(options.bodyBudget ?? DEFAULT_BODY_BUDGET, "bodyBudget");
  const routeParts = { bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, budget, logger, hrefs: new HrefCache() };
  const logging: RequestLogging =
    options.logRequests === true ? "all" : options.logRequests === false ? "off" : (options.logRequests ?? "off");
  const requestLog = new RequestLog(logging, options.requestLogSample ?? DEFAULT_REQUEST_LOG_SAMPLE, logger);
  let ready = false;

  /** A mail provider's webhook carries no flagpost key: it authenticates inside its route. */
  async function respondToProviderWhenReady(
    route: ProviderRoute,
    params: Readonly<Record<string, string>>,
    request: HttpRequest,
    rateHeaders: Headers,
  ) {
    if (!ready) {
      await fp.ready();
      ready = true;
    }
    return respondToProvider(route, params, request, rateHeaders, { limiter, budget, logger });
  }

  /**
   * The stages of a request to /v1 or /ofrep: the key, then the route. Not async: a key verified
   * lately gives its answer with no promise, so an evaluation costs one await in all (the route's).
   */
  function respond(request: HttpRequest, match: RouteMatch, rateHeaders: Headers): Answer {
    if (match.kind === "found" && match.route.scope === PROVIDER_AUTH)
      return respondToProviderWhenReady(match.route, match.params, request, rateHeaders);
    const checked = keys.check(request, bearerToken(request.headers.authorization), match, rateHeaders);
    return checked instanceof Promise
      ? checked.then((apiKey) => route(request, match, apiKey, rateHeaders))
      : route(request, match, checked, rateHeaders);
  }

  function route(request: HttpRequest, match: RouteMatch, apiKey: ApiKeyInfo | HttpResponse, rateHeaders: Headers) {
    if ("status" in apiKey) return apiKey;
    if (match.kind === "none")
      return errorResponse(
        router.styleFor(request.path),
        new FlagpostError("not_found", `No route for ${request.method} ${request.path}`),
        rateHeaders,
      );
    if (match.kind === "method_not_allowed") {
      const error = new FlagpostError(
        "method_not_allowed",
        `${request.method} is not allowed here; use ${match.allow.join(", ")}`,
      );
      return errorResponse(router.styleFor(request.path), error, { ...rateHeaders, allow: match.allow.join(", ") });
    }
    // Provider routes were answered above.
    return runRoute(routeParts, request, match.route as KeyRoute, match.params, apiKey, rateHeaders);
  }

  return async (request) => {
    const page = publicAnswer(request);
    if (page) return page;
    if (request.path !== "/v1" && !request.path.startsWith("/v1/") && !request.path.startsWith(OFREP_PREFIX))
      return undefined;
    const started = performance.now();
    const rateHeaders: Record<string, string> = {};
    const match = router.match(request.method, request.path);
    let response: HttpResponse;
    try {
      response = await respond(request, match, rateHeaders);
    } catch (error) {
      // Failures outside a route (storage down while checking the key, migrations failing).
      logger.error("request failed", { method: request.method, path: request.path, ...errorFields(error) });
      // No key was verified, so no key's bucket was read: count the request against the
      // client address, so this response too carries the ratelimit headers.
      if (anonymous && !("ratelimit-limit" in rateHeaders)) anonymous.take(addressOf(request), rateHeaders);
      response = errorResponse(router.styleFor(request.path), error, rateHeaders);
    }
    response = cors.decorate(request, response);
    requestMetrics.observe(request.method, match, response.status, started);
    requestLog.write(request, response.status, started);
    return response;
  };
}
