import type { Flagpost } from "../../src/flagpost.js";
import { notFoundResponse } from "./error-body.js";
import { createHandler, type HttpOptions } from "./handler.js";
import { unmatchedResponse } from "./unmatched.js";
import { fromWebRequest, normalizeBasePath, splitUrl, stripBasePath, toWebResponse } from "./web.js";

export interface FetchHandlerOptions extends HttpOptions {
  /** Where the handler is mounted when requests arrive with a prefix ("/api" serves /api/v1/…). Default "". */
  basePath?: string;
}

/**
 * A standard `(request) => Promise<Response>` handler for runtimes and frameworks built on the
 * WHATWG Fetch API (Deno, Bun, workers, Next.js route handlers, @hono/node-server). Paths
 * outside `basePath` + /v1 get a JSON 404. The optional second argument is the runtime's
 * bindings; with @hono/node-server's `{incoming}` the client address feeds the rate limiter.
 */
export function toFetchHandler(
  fp: Flagpost,
  options: FetchHandlerOptions = {},
): (request: Request, env?: unknown) => Promise<Response> {
  const handle = createHandler(fp, options);
  const basePath = normalizeBasePath(options.basePath);
  return async (request, env) => {
    const { path: fullPath, query } = splitUrl(request.url);
    const path = stripBasePath(fullPath, basePath);
    if (path === undefined) return toWebResponse(notFoundResponse(fullPath));
    const httpRequest = fromWebRequest(request, { path, query, basePath, env });
    const response = await handle(httpRequest);
    return toWebResponse(
      response ?? unmatchedResponse(httpRequest, { ...options, basePath, origin: new URL(request.url).origin }),
    );
  };
}
