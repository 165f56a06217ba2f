import type { ApiKeyInfo } from "../../src/auth/index.js";
import type { Flagpost } from "../../src/flagpost.js";
import { FlagpostError } from "../../src/errors.js";
import { errorResponse } from "./error-body.js";
import type { RateLimiter } from "./rate-limit.js";
import type { RouteMatch, Router } from "./router.js";
import type { SharedRateLimiter } from "./shared-rate-limit.js";
import type { HttpRequest, HttpResponse } from "./types.js";

export function rateLimited(): FlagpostError {
  return new FlagpostError("rate_limit_exceeded", "Too many requests; retry after the time in Retry-After");
}

/** The client address, as the anonymous bucket counts it. */
export function addressOf(request: HttpRequest): string {
  return request.remoteAddress ?? "unknown";
}

export interface KeyCheckParts {
  fp: Flagpost;
  router: Router;
  /** The per-key bucket; undefined with `rateLimit: false`. */
  limiter: RateLimiter | undefined;
  /** The per-key bucket shared through a store, when one is configured. */
  shared: SharedRateLimiter | undefined;
  /** The per-address bucket for requests without a valid key. */
  anonymous: RateLimiter | undefined;
}

/**
 * The first stage of every keyed request: the bearer key is checked, and its bucket (or the
 * client address's) charged, before anything else is looked at, so an unauthenticated client
 * learns nothing about what exists. Answers the key, or the error response to send.
 *
 * A key this process verified lately is answered from memory with no promise at all (the hot
 * path of every evaluation); only the first request, an unknown key or a shared rate-limit store
 * makes this stage asynchronous.
 */
export class KeyCheck {
  readonly #parts: KeyCheckParts;
  #ready = false;

  constructor(parts: KeyCheckParts) {
    this.#parts = parts;
  }

  check(
    request: HttpRequest,
    token: string | undefined,
    match: RouteMatch,
    rateHeaders: Record<string, string>,
  ): ApiKeyInfo | HttpResponse | Promise<ApiKeyInfo | HttpResponse> {
    if (token === undefined) return this.#missing(request, rateHeaders);
    if (!this.#ready) return this.#firstCheck(request, token, match, rateHeaders);
    const { fp, anonymous, router } = this.#parts;
    const cached = fp.keys.cached(token);
    // A key this process has not seen lately may be made up: its client address pays first, so a
    // flood of random keys is refused before each could cost a storage read.
    if (anonymous && cached === "unknown") {
      const decision = anonymous.take(addressOf(request), rateHeaders);
      if (!decision.allowed) return errorResponse(router.styleFor(request.path), rateLimited(), rateHeaders);
    }
    if (typeof cached === "object") return this.#charge(request, cached, rateHeaders);
    const fromMemory = match.kind === "found" && "fromMemory" in match.route && match.route.fromMemory === true;
    const verified = fromMemory ? fp.keys.verifyOrRemember(token) : fp.keys.verify(token);
    return verified.then((apiKey) => this.#charge(request, apiKey, rateHeaders));
  }

  async #firstCheck(
    request: HttpRequest,
    token: string,
    match: RouteMatch,
    rateHeaders: Record<string, string>,
  ): Promise<ApiKeyInfo | HttpResponse> {
    await this.#parts.fp.ready();
    this.#ready = true; // once ready, it stays so: no await per request
    return this.check(request, token, match, rateHeaders);
  }

  #missing(request: HttpRequest, rateHeaders: Record<string, string>): HttpResponse {
    const { anonymous, router } = this.#parts;
    const decision = anonymous?.take(addressOf(request), rateHeaders);
    const style = router.styleFor(request.path);
    if (decision && !decision.allowed) return errorResponse(style, rateLimited(), rateHeaders);
    return errorResponse(
      style,
      new FlagpostError("missing_api_key", 'Send your API key as "Authorization: Bearer <API_KEY>"'),
      rateHeaders,
    );
  }

  /** A valid key pays from its own bucket; a revoked one (known, so not charged yet) from the address's. */
  #charge(
    request: HttpRequest,
    apiKey: ApiKeyInfo | undefined,
    rateHeaders: Record<string, string>,
  ): ApiKeyInfo | HttpResponse | Promise<ApiKeyInfo | HttpResponse> {
    const { shared, limiter, anonymous } = this.#parts;
    if (apiKey && shared)
      return shared
        .take(apiKey.id, rateHeaders)
        .then((decision) => this.#judge(request, apiKey, decision, rateHeaders));
    const decision = apiKey
      ? limiter?.take(apiKey.id, rateHeaders)
      : "ratelimit-limit" in rateHeaders
        ? undefined
        : anonymous?.take(addressOf(request), rateHeaders);
    return this.#judge(request, apiKey, decision, rateHeaders);
  }

  #judge(
    request: HttpRequest,
    apiKey: ApiKeyInfo | undefined,
    decision: { allowed: boolean } | undefined,
    rateHeaders: Record<string, string>,
  ): ApiKeyInfo | HttpResponse {
    if (apiKey && (decision === undefined || decision.allowed)) return apiKey;
    const style = this.#parts.router.styleFor(request.path);
    if (decision && !decision.allowed) return errorResponse(style, rateLimited(), rateHeaders);
    return errorResponse(style, new FlagpostError("invalid_api_key", "The API key is unknown or revoked"), rateHeaders);
  }
}
