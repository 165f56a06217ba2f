import type { HttpRequest, HttpResponse } from "../types.js";

/** The OFREP routes' prefix: the only paths CORS is ever enabled on. */
export const OFREP_PREFIX = "/ofrep/";

const ALLOW_HEADERS = "Authorization, Content-Type, If-None-Match";
/**
 * Answer headers a page may read beyond the CORS-safelisted ones: the bulk ETag it sends back, and
 * the Retry-After of a 429, without which the web provider keeps polling at its interval.
 */
const EXPOSE_HEADERS = "ETag, Retry-After";
const MAX_AGE_SECONDS = "600";

/** `FLAGPOST_CORS_ORIGINS`: comma-separated origins; unset or empty means no CORS. */
export function parseCorsOrigins(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((origin) => origin.trim().replace(/\/$/, ""))
    .filter((origin) => origin !== "");
}

/**
 * CORS for /ofrep/ (docs/ofrep.md): a preflight from an allowed origin is answered 204 here,
 * before any key is asked for (browsers send no Authorization on a preflight); an allowed
 * origin's real request gets the headers added to its answer. Other origins get no CORS headers,
 * so the browser refuses them; `Vary: Origin` keeps caches from mixing the two.
 */
export function ofrepCors(origins: readonly string[]) {
  const allowed = new Set(origins);
  const headersFor = (request: HttpRequest): Record<string, string> | undefined => {
    const origin = request.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return undefined;
    return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSE_HEADERS, vary: "Origin" };
  };
  return {
    /** A preflight's answer, or undefined when the request is not one for /ofrep/. */
    preflight(request: HttpRequest): HttpResponse | undefined {
      if (request.method !== "OPTIONS" || !request.path.startsWith(OFREP_PREFIX) || allowed.size === 0)
        return undefined;
      const cors = headersFor(request);
      if (cors === undefined) return { status: 204, headers: { vary: "Origin" } };
      return {
        status: 204,
        headers: {
          ...cors,
          "access-control-allow-methods": "GET, POST, OPTIONS",
          "access-control-allow-headers": ALLOW_HEADERS,
          "access-control-max-age": MAX_AGE_SECONDS,
        },
      };
    },
    /** Adds the CORS headers to an /ofrep/ answer for an allowed origin. */
    decorate(request: HttpRequest, response: HttpResponse): HttpResponse {
      if (!request.path.startsWith(OFREP_PREFIX)) return response;
      const cors = headersFor(request);
      if (cors === undefined) return response;
      return { ...response, headers: { ...response.headers, ...cors } };
    },
  };
}
