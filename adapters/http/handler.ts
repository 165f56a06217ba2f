import {
  asLogger,
  ByteBudget,
  errorFields,
  FlagpostError,
  type Flagpost,
  hasScope,
  isStorableText,
  type Logger,
} from "../../src/internal.js";
import type { DashboardOptions } from "./dashboard/serve.js";
import { errorResponse, jsonResponse } from "./error-body.js";
import { BODY_RETRY_AFTER, budgetExceeded, bytesToHold, DEFAULT_BODY_BUDGET } from "./body-budget.js";
import { ANONYMOUS_DEFAULTS, DEFAULT_KEY_LIMIT, type RateLimitOptions, RateLimiter } from "./rate-limit.js";
import { SharedRateLimiter } from "./shared-rate-limit.js";
import { Router } from "./router.js";
import { allRoutes } from "./routes/index.js";
import { respondToProvider } from "./provider-request.js";
import type { ProbeOptions } from "./probes.js";
import { OFREP_PREFIX, ofrepCors } from "./ofrep/cors.js";
import { type MetricsOptions, RequestMetrics } from "./metrics.js";
import { publicAnswers } from "./public-answers.js";
import { bearerToken, readJson } from "./request-json.js";
import type { InboundOptions } from "./routes/inbound.js";
import { type HttpRequest, type HttpResponse, type KeyRoute, PROVIDER_AUTH, type RouteContext } from "./types.js";

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
  /** Delivery-report webhooks (`/v1/inbound/{provider}`): each provider's secret; one left out answers 404. */
  inbound?: InboundOptions;
  /** `GET /health` and `GET /ready` at the mount point (adapters/http/probes.ts), unless `false`. */
  probes?: ProbeOptions | false;
  /** Origins allowed to call /ofrep/ from a browser (`FLAGPOST_CORS_ORIGINS`); none by default. */
  corsOrigins?: readonly string[];
  /** `GET /metrics` at the mount point (adapters/http/metrics.ts, docs/operations.md), unless `false`. */
  metrics?: MetricsOptions | false;
}

export const REQUEST_LOGGING = ["off", "sampled", "all"] as const;
export type RequestLogging = (typeof REQUEST_LOGGING)[number];
export const DEFAULT_REQUEST_LOG_SAMPLE = 100;

/** Handles a request, or returns undefined when the path is not flagpost's (the app's next handler). */
export type Handler = (request: HttpRequest) => Promise<HttpResponse | undefined>;

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

function rateLimited(): FlagpostError {
  return new FlagpostError("rate_limit_exceeded", "Too many requests; retry after the time in Retry-After");
}

/** One href builder per mount prefix (an app mounts flagpost at one or a few). */
class HrefCache {
  readonly #byBase = new Map<string, RouteContext["href"]>();

  get(basePath: string): RouteContext["href"] {
    let href = this.#byBase.get(basePath);
    if (href === undefined) {
      href = hrefFor(basePath);
      if (this.#byBase.size >= 100) this.#byBase.clear();
      this.#byBase.set(basePath, href);
    }
    return href;
  }
}

function hrefFor(basePath: string) {
  return (path: string, query: Record<string, string | undefined> = {}): string => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
    const qs = params.toString();
    return `${basePath}${path}${qs ? `?${qs}` : ""}`;
  };
}

/**
 * The HTTP core: auth, scopes, rate limit, routing, body limits and the error table of docs/api.md,
 * with no framework in sight. Order matters: the key is checked before anything else is looked
 * at, so an unauthenticated client learns nothing about what exists.
 */
export function createHandler(fp: Flagpost, options: HttpOptions = {}): Handler {
  const router = new Router(allRoutes(fp, options.inbound));
  const cors = ofrepCors(options.corsOrigins ?? []);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
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
  const anonymousLimiter =
    options.rateLimit === false
      ? undefined
      : new RateLimiter({ ...ANONYMOUS_DEFAULTS, ...options.rateLimit?.anonymous }, fp.clock);
  const addressOf = (request: HttpRequest) => request.remoteAddress ?? "unknown";
  const requestMetrics = new RequestMetrics(options.metrics !== false);
  const publicAnswer = publicAnswers(fp, logger, options, requestMetrics, cors);
  const hrefs = new HrefCache();
  const budget =
    options.bodyBudget === false ? undefined : new ByteBudget(options.bodyBudget ?? DEFAULT_BODY_BUDGET, "bodyBudget");
  let ready = false;
  const logging: RequestLogging =
    options.logRequests === true ? "all" : options.logRequests === false ? "off" : (options.logRequests ?? "off");
  const sampleEvery = Math.max(1, Math.floor(options.requestLogSample ?? DEFAULT_REQUEST_LOG_SAMPLE));
  /** Requests since the last sampled line (not 5xx): counted, not drawn, so exactly one in N is logged. */
  let unsampled = 0;

  async function respond(request: HttpRequest, rateHeaders: Record<string, string>): Promise<HttpResponse> {
    const match = router.match(request.method, request.path);
    // A mail provider's webhook carries no flagpost key: it authenticates inside its route.
    if (match.kind === "found" && match.route.scope === PROVIDER_AUTH) {
      if (!ready) {
        await fp.ready();
        ready = true;
      }
      return respondToProvider(match.route, request, rateHeaders, { limiter, budget, logger });
    }
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) {
      const decision = anonymousLimiter?.take(addressOf(request), rateHeaders);
      const style = router.styleFor(request.path);
      if (decision && !decision.allowed) return errorResponse(style, rateLimited(), rateHeaders);
      return errorResponse(
        style,
        new FlagpostError("missing_api_key", 'Send your API key as "Authorization: Bearer <API_KEY>"'),
        rateHeaders,
      );
    }
    if (!ready) {
      await fp.ready();
      ready = true; // once ready, it stays so: no await per request
    }
    // The hot path: a key verified lately is answered from memory, with no await.
    const cached = fp.keys.cached(token);
    // A key this process has not seen lately may be made up: its client address pays first, so a
    // flood of random keys is refused before each could cost a storage read.
    if (anonymousLimiter && cached === "unknown") {
      const decision = anonymousLimiter.take(addressOf(request), rateHeaders);
      if (!decision.allowed) return errorResponse(router.styleFor(request.path), rateLimited(), rateHeaders);
    }
    const fromMemory = match.kind === "found" && "fromMemory" in match.route && match.route.fromMemory === true;
    const apiKey =
      typeof cached === "object"
        ? cached
        : fromMemory
          ? await fp.keys.verifyOrRemember(token)
          : await fp.keys.verify(token);
    // A valid key pays from its own bucket; a revoked one (known, so not charged above) from the address's.
    const decision = apiKey
      ? shared
        ? await shared.take(apiKey.id, rateHeaders)
        : limiter?.take(apiKey.id, rateHeaders)
      : "ratelimit-limit" in rateHeaders
        ? undefined
        : anonymousLimiter?.take(addressOf(request), rateHeaders);
    if (decision && !decision.allowed) return errorResponse(router.styleFor(request.path), rateLimited(), rateHeaders);
    if (!apiKey)
      return errorResponse(
        router.styleFor(request.path),
        new FlagpostError("invalid_api_key", "The API key is unknown or revoked"),
        rateHeaders,
      );

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
    const route = match.route as KeyRoute; // provider routes were answered above
    const routeStyle = route.style;
    if (!hasScope(apiKey.scopes, route.scope)) {
      return errorResponse(
        routeStyle,
        new FlagpostError("restricted_api_key", `This API key lacks the "${route.scope}" scope`),
        rateHeaders,
      );
    }
    // A path id no storage could hold (a NUL, an unpaired surrogate) names nothing: 404, and no
    // storage is asked (PostgreSQL would refuse the text with an error).
    for (const name in match.params) {
      if (!isStorableText(match.params[name]!))
        return errorResponse(routeStyle, new FlagpostError("not_found", `Nothing has this ${name}`), rateHeaders);
    }
    const limit = route.bodyLimit ?? bodyLimit;
    // Held until the response is ready: the bytes, their text and the parsed body live until then.
    let held = 0;
    if (route.body && budget && request.body.kind === "stream") {
      const bytes = bytesToHold(request.headers["content-length"], limit);
      if (!budget.tryReserve(bytes))
        // Closing the connection spares reading the refused body: Node would otherwise read and
        // discard all of it to keep the connection alive, and every retry would cost that again.
        return errorResponse(routeStyle, budgetExceeded(), {
          ...rateHeaders,
          "retry-after": BODY_RETRY_AFTER,
          connection: "close",
        });
      held = bytes;
    }
    try {
      const body = route.body ? await readJson(request.body, request.headers, limit) : undefined;
      const ctx: RouteContext = {
        params: match.params,
        query: request.query,
        body,
        headers: request.headers,
        apiKey,
        href: hrefs.get(request.basePath ?? ""),
      };
      const result = await route.handle(ctx);
      const headers = result.headers === undefined ? rateHeaders : Object.assign(rateHeaders, result.headers);
      if (result.stream) return { status: result.status, headers, stream: result.stream };
      if (result.bytes) return { status: result.status, headers, body: result.bytes };
      if (result.body === undefined) return { status: result.status, headers };
      return jsonResponse(result.status, result.body, headers);
    } catch (error) {
      if (!(error instanceof FlagpostError) || error.code === "internal_server_error" || error.code === "unavailable") {
        logger.error("request failed", { method: request.method, path: request.path, ...errorFields(error) });
      }
      const extra: Record<string, string> =
        error instanceof FlagpostError && error.code === "payload_too_large" ? { connection: "close" } : {};
      return errorResponse(routeStyle, error, { ...rateHeaders, ...extra });
    } finally {
      budget?.release(held);
    }
  }

  return async (request) => {
    const page = publicAnswer(request);
    if (page) return page;
    if (request.path !== "/v1" && !request.path.startsWith("/v1/") && !request.path.startsWith(OFREP_PREFIX))
      return undefined;
    const started = performance.now();
    const rateHeaders: Record<string, string> = {};
    let response: HttpResponse;
    try {
      response = await respond(request, rateHeaders);
    } catch (error) {
      // Failures outside a route (storage down while checking the key, migrations failing).
      logger.error("request failed", { method: request.method, path: request.path, ...errorFields(error) });
      // No key was verified, so no key's bucket was read: count the request against the
      // client address, so this response too carries the ratelimit headers.
      if (anonymousLimiter && !("ratelimit-limit" in rateHeaders))
        anonymousLimiter.take(addressOf(request), rateHeaders);
      response = errorResponse(router.styleFor(request.path), error, rateHeaders);
    }
    response = cors.decorate(request, response);
    requestMetrics.observe(request.method, router.match(request.method, request.path), response.status, started);
    if (logging === "off") return response;
    let sample: number | undefined;
    if (logging === "sampled" && response.status < 500) {
      if (++unsampled < sampleEvery) return response;
      unsampled = 0;
      sample = sampleEvery;
    }
    logger.info("request", {
      method: request.method,
      path: request.path,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      ...(sample === undefined ? {} : { sample }),
    });
    return response;
  };
}
