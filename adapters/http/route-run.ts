import { type ApiKeyInfo, hasScope } from "../../src/auth/index.js";
import type { ByteBudget } from "../../src/jobs/index.js";
import { errorFields, type Logger } from "../../src/ports/logger.js";
import { FlagpostError } from "../../src/errors.js";
import { isStorableText } from "../../src/input-policy.js";
import { BODY_RETRY_AFTER, budgetExceeded, bytesToHold } from "./body-budget.js";
import { errorResponse, jsonResponse, jsonTextResponse } from "./error-body.js";
import { readJson } from "./request-json.js";
import type { ErrorStyle, HttpRequest, HttpResponse, KeyRoute, RouteContext } from "./types.js";

export interface RouteRunParts {
  /** Largest body for routes without their own limit. */
  bodyLimit: number;
  budget: ByteBudget | undefined;
  logger: Logger;
  hrefs: HrefCache;
}

/**
 * The last stage of a keyed request: the key's scope, the path's ids, the body (within the route's
 * limit and the process's body budget), the route itself, and its result as a response. Every
 * error a route throws becomes docs/api.md's answer here; only the unexpected ones are logged.
 */
export async function runRoute(
  parts: RouteRunParts,
  request: HttpRequest,
  route: KeyRoute,
  params: Readonly<Record<string, string>>,
  apiKey: ApiKeyInfo,
  rateHeaders: Record<string, string>,
): Promise<HttpResponse> {
  const style = route.style;
  if (!hasScope(apiKey.scopes, route.scope))
    return errorResponse(
      style,
      new FlagpostError("restricted_api_key", `This API key lacks the "${route.scope}" scope`),
      rateHeaders,
    );
  // A path id no storage could hold (a NUL, an unpaired surrogate) names nothing: 404, and no
  // storage is asked (PostgreSQL would refuse the text with an error).
  for (const name in params) {
    if (!isStorableText(params[name]!))
      return errorResponse(style, new FlagpostError("not_found", `Nothing has this ${name}`), rateHeaders);
  }
  const limit = route.bodyLimit ?? parts.bodyLimit;
  const { budget } = parts;
  // Held until the response is ready: the bytes, their text and the parsed body live until then.
  let held = 0;
  if (route.body && budget && request.body.kind === "stream") {
    const bytes = bytesToHold(request.headers["content-length"], limit);
    if (!budget.tryReserve(bytes))
      // Closing the connection spares reading the refused body: Node would otherwise read and
      // discard all of it to keep the connection alive, and every retry would cost that again.
      return errorResponse(style, budgetExceeded(), {
        ...rateHeaders,
        "retry-after": BODY_RETRY_AFTER,
        connection: "close",
      });
    held = bytes;
  }
  try {
    const body = route.body ? await readJson(request.body, request.headers, limit) : undefined;
    const ctx: RouteContext = {
      params,
      query: request.query,
      body,
      headers: request.headers,
      apiKey,
      href: parts.hrefs.get(request.basePath ?? ""),
    };
    const result = await route.handle(ctx);
    const headers = result.headers === undefined ? rateHeaders : Object.assign(rateHeaders, result.headers);
    if (result.stream) return { status: result.status, headers, stream: result.stream };
    if (result.bytes) return { status: result.status, headers, body: result.bytes };
    if (result.json !== undefined) return jsonTextResponse(result.status, result.json, headers);
    if (result.body === undefined) return { status: result.status, headers };
    return jsonResponse(result.status, result.body, headers);
  } catch (error) {
    return failedRequestResponse(error, request, style, rateHeaders, parts.logger);
  } finally {
    budget?.release(held);
  }
}

/**
 * The answer to a request whose route threw: the error as docs/api.md words it, logged only when
 * unexpected (not a FlagpostError, or a 500 or 503 one). A body over its limit may be unread still,
 * so the connection is closed rather than kept for the next request.
 */
export function failedRequestResponse(
  error: unknown,
  request: HttpRequest,
  style: ErrorStyle,
  rateHeaders: Record<string, string>,
  logger: Logger,
): HttpResponse {
  if (!(error instanceof FlagpostError) || error.code === "internal_server_error" || error.code === "unavailable") {
    logger.error("request failed", { method: request.method, path: request.path, ...errorFields(error) });
  }
  const extra: Record<string, string> =
    error instanceof FlagpostError && error.code === "payload_too_large" ? { connection: "close" } : {};
  return errorResponse(style, error, { ...rateHeaders, ...extra }, request.path);
}

/** One href builder per mount prefix (an app mounts flagpost at one or a few). */
export class HrefCache {
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
