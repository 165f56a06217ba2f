import type { ApiKeyInfo } from "../../src/auth/index.js";
import { errorFields, type Logger } from "../../src/ports/logger.js";
import { FlagpostError } from "../../src/errors.js";
import type { Flagpost } from "../../src/flagpost.js";
import { errorResponse } from "./error-body.js";
import { addressOf, type KeyCheck } from "./key-check.js";
import type { RequestMetrics } from "./metrics.js";
import { OFREP_PREFIX, type ofrepCors } from "./ofrep/cors.js";
import { respondToProvider } from "./provider-request.js";
import type { RateLimiter } from "./rate-limit.js";
import type { RequestLog } from "./request-log.js";
import { bearerToken } from "./request-json.js";
import { type RouteRunParts, runRoute } from "./route-run.js";
import type { RouteMatch, Router } from "./router.js";
import { type HttpRequest, type HttpResponse, type KeyRoute, PROVIDER_AUTH, type ProviderRoute } from "./types.js";

/**
 * The stages of a request through createHandler, each a named function built once per handler
 * and composed once by `composeStages`: the public answers, the path check, the route match,
 * the key (or a provider's own credentials) and the route, a failure outside a route, and the
 * finish (CORS, metrics, the request log). No stage is async unless its work is: a key verified
 * lately reaches the route with no promise, so an evaluation costs one await in all (the route's).
 */

type Headers = Record<string, string>;
type Answer = HttpResponse | Promise<HttpResponse>;

/** What the stages share, made once per handler from its options. */
export interface HandlerParts {
  fp: Flagpost;
  router: Router;
  keys: KeyCheck;
  limiter: RateLimiter | undefined;
  /** The per-address bucket for requests without a valid key. */
  anonymous: RateLimiter | undefined;
  logger: Logger;
  routeParts: RouteRunParts;
  cors: ReturnType<typeof ofrepCors>;
  requestMetrics: RequestMetrics;
  requestLog: RequestLog;
  /** The dashboard, probes, /metrics and the other answers given before any key is asked for. */
  publicAnswer: (request: HttpRequest) => Answer | undefined;
}

/** The answer of a keyed route to a request whose key was checked: the route's, or the check's refusal. */
type RouteStage = (request: HttpRequest, match: RouteMatch, apiKey: ApiKeyInfo | HttpResponse, rate: Headers) => Answer;
/** A request to /v1 or /ofrep, matched: its whole answer, failures in a route included. */
type RespondStage = (request: HttpRequest, match: RouteMatch, rate: Headers) => Answer;

interface Stages {
  publicAnswer: HandlerParts["publicAnswer"];
  router: Router;
  respond: RespondStage;
  fail: (request: HttpRequest, error: unknown, rate: Headers) => HttpResponse;
  finish: (request: HttpRequest, match: RouteMatch, response: HttpResponse, started: number) => HttpResponse;
}

/** Whether a path is flagpost's to answer with a key: /v1 and /ofrep; every other path goes to the app. */
function isKeyedPath(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/") || path.startsWith(OFREP_PREFIX);
}

/** A mail provider's webhook carries no flagpost key: it authenticates inside its route. */
function providerStage(parts: HandlerParts) {
  const { fp, limiter, routeParts } = parts;
  const providerParts = { limiter, budget: routeParts.budget, logger: routeParts.logger };
  let ready = false;
  return async (
    route: ProviderRoute,
    params: Readonly<Record<string, string>>,
    request: HttpRequest,
    rate: Headers,
  ) => {
    if (!ready) {
      await fp.ready();
      ready = true;
    }
    return respondToProvider(route, params, request, rate, providerParts);
  };
}

/** The route once the key is known: 404 and 405 here (after the key, so they reveal nothing), else runRoute. */
function routeStage(parts: HandlerParts): RouteStage {
  const { router, routeParts } = parts;
  return (request, match, apiKey, rate) => {
    if ("status" in apiKey) return apiKey;
    if (match.kind === "none")
      return errorResponse(
        router.styleFor(request.path),
        new FlagpostError("not_found", `No route for ${request.method} ${request.path}`),
        rate,
      );
    if (match.kind === "method_not_allowed") {
      const allow = match.allow.join(", ");
      const error = new FlagpostError("method_not_allowed", `${request.method} is not allowed here; use ${allow}`);
      return errorResponse(router.styleFor(request.path), error, { ...rate, allow });
    }
    // Provider routes were answered before the key stage.
    return runRoute(routeParts, request, match.route as KeyRoute, match.params, apiKey, rate);
  };
}

/** The key, then the route; a provider's route instead authenticates on its own. */
function respondStage(parts: HandlerParts): RespondStage {
  const { keys } = parts;
  const provider = providerStage(parts);
  const route = routeStage(parts);
  return (request, match, rate) => {
    if (match.kind === "found" && match.route.scope === PROVIDER_AUTH)
      return provider(match.route, match.params, request, rate);
    const checked = keys.check(request, bearerToken(request.headers.authorization), match, rate);
    return checked instanceof Promise
      ? checked.then((apiKey) => route(request, match, apiKey, rate))
      : route(request, match, checked, rate);
  };
}

/** Failures outside a route (storage down while checking the key, migrations failing). */
function failureStage(parts: HandlerParts) {
  const { anonymous, logger, router } = parts;
  return (request: HttpRequest, error: unknown, rate: Headers): HttpResponse => {
    logger.error("request failed", { method: request.method, path: request.path, ...errorFields(error) });
    // No key was verified, so no key's bucket was read: count the request against the client
    // address, so this response too carries the ratelimit headers.
    if (anonymous && !("ratelimit-limit" in rate)) anonymous.take(addressOf(request), rate);
    return errorResponse(router.styleFor(request.path), error, rate);
  };
}

/** What every answer to /v1 and /ofrep goes through last: CORS, the request series, the request log. */
function finishStage(parts: HandlerParts) {
  const { cors, requestMetrics, requestLog } = parts;
  return (request: HttpRequest, match: RouteMatch, response: HttpResponse, started: number): HttpResponse => {
    const decorated = cors.decorate(request, response);
    requestMetrics.observe(request.method, match, decorated.status, started);
    requestLog.write(request, decorated.status, started);
    return decorated;
  };
}

/** The stages of one handler, built once. */
export function handlerStages(parts: HandlerParts): Stages {
  return {
    publicAnswer: parts.publicAnswer,
    router: parts.router,
    respond: respondStage(parts),
    fail: failureStage(parts),
    finish: finishStage(parts),
  };
}

/** The stages in order, as the one function a mount calls per request. */
export function composeStages(stages: Stages): (request: HttpRequest) => Promise<HttpResponse | undefined> {
  const { publicAnswer, router, respond, fail, finish } = stages;
  return async (request) => {
    const page = publicAnswer(request);
    if (page) return page;
    if (!isKeyedPath(request.path)) return undefined;
    const started = performance.now();
    const rate: Headers = {};
    const match = router.match(request.method, request.path);
    let response: HttpResponse;
    try {
      response = await respond(request, match, rate);
    } catch (error) {
      response = fail(request, error, rate);
    }
    return finish(request, match, response, started);
  };
}
