import type { Flagpost } from "../../src/flagpost.js";
import { createHandler, type HttpOptions } from "./handler.js";
import { bytesBody } from "./read-body.js";
import { fromWebRequest, normalizeBasePath, splitUrl, stripBasePath, toWebResponse } from "./web.js";

/** The subset of Hono's Context this middleware reads (typed here so hono stays an optional peer). */
export interface HonoContextLike {
  req: {
    raw: Request;
    /** The pattern the running middleware was registered with ("/api/*"). */
    readonly routePath?: string;
    /** Hono's cached body, for when an earlier handler already read it. */
    arrayBuffer(): Promise<ArrayBuffer>;
  };
  env?: unknown;
}

export type HonoMiddleware = (c: HonoContextLike, next: () => Promise<unknown>) => Promise<Response | undefined>;

export interface HonoOptions extends HttpOptions {
  /** The mount prefix. Default: the static part of the pattern the middleware is registered with. */
  basePath?: string;
}

/** A pattern's static segments before its first wildcard or parameter, worked out once per pattern. */
const fixedByPattern = new Map<string, string[]>();

function fixedSegments(pattern: string): string[] {
  let fixed = fixedByPattern.get(pattern);
  if (fixed === undefined) {
    fixed = [];
    for (const segment of pattern.split("/").slice(1)) {
      if (segment === "" || segment.includes("*") || segment.includes("{") || segment.endsWith("?")) break;
      fixed.push(segment);
    }
    if (fixedByPattern.size >= 100) fixedByPattern.clear();
    fixedByPattern.set(pattern, fixed);
  }
  return fixed;
}

/**
 * The prefix of `path` that the registration pattern covers before its wildcard:
 * pattern "/api/*" and path "/api/v1/flags" give "/api"; "*" gives "".
 */
function mountPrefix(pattern: string | undefined, path: string): string {
  if (!pattern?.startsWith("/")) return "";
  const fixed = fixedSegments(pattern);
  if (fixed.length === 0) return "";
  const actual = path.split("/").slice(1, fixed.length + 1);
  return actual.length === fixed.length && fixed.length > 0 ? `/${actual.join("/")}` : "";
}

/**
 * Hono middleware: `app.use("/api/*", toHono(fp))` (or `app.use(toHono(fp))` at the root).
 * Requests under /v1 are answered; everything else goes on to the app's next handler.
 */
export function toHono(fp: Flagpost, options: HonoOptions = {}): HonoMiddleware {
  const handle = createHandler(fp, options);
  const fixedBase = options.basePath === undefined ? undefined : normalizeBasePath(options.basePath);
  return async (c, next) => {
    const raw = c.req.raw;
    const { path: fullPath, query } = splitUrl(raw.url);
    const basePath = fixedBase ?? mountPrefix(c.req.routePath, fullPath);
    const path = stripBasePath(fullPath, basePath);
    const body = raw.bodyUsed ? bytesBody(async () => new Uint8Array(await c.req.arrayBuffer())) : undefined;
    const response =
      path === undefined ? undefined : await handle(fromWebRequest(raw, { path, query, basePath, body, env: c.env }));
    if (response) return toWebResponse(response);
    await next();
    return undefined;
  };
}
