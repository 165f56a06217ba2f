import type { IncomingMessage } from "node:http";
import { joinedHeaders } from "./node-headers.js";
import { nodeStreamBody, readWebBytes, readWebStream } from "./read-body.js";
import type { HttpRequest, HttpResponse, RequestBody } from "./types.js";

/**
 * The parts of a WHATWG Request's URL that routing needs: the raw (still encoded) path and the
 * query. `Request.url` is always a serialised, normalised absolute URL (the Request constructor,
 * and @hono/node-server's lazy Request, parse it), so its path is what `new URL(url).pathname`
 * would give: it is cut out of the string instead of parsing the URL again on every request.
 */
export function splitUrl(url: string): { path: string; query: URLSearchParams } {
  const scheme = url.indexOf("://");
  const slash = scheme < 0 ? -1 : url.indexOf("/", scheme + 3);
  if (slash < 0) {
    const parsed = new URL(url); // not the shape a Request gives: let URL decide
    return { path: parsed.pathname, query: parsed.searchParams };
  }
  let end = url.indexOf("#", slash);
  if (end < 0) end = url.length;
  const q = url.indexOf("?", slash);
  if (q < 0 || q > end) return { path: url.slice(slash, end), query: new URLSearchParams() };
  return { path: url.slice(slash, q), query: new URLSearchParams(url.slice(q + 1, end)) };
}

/**
 * The body of a WHATWG Request, read on demand within the route's limit. `request.body` is only
 * touched when the body is read: on @hono/node-server, creating the stream starts pulling from
 * the socket, and a body pulled but not read to the end is not drained before the response, which
 * breaks the connection. Framing headers say whether there is a body; only a request with
 * neither (HTTP/2, a Request built in code) is asked directly. A body with a Content-Length
 * within the limit is read whole with `arrayBuffer()` (@hono/node-server then reads the socket
 * directly instead of building a web stream); one without is counted chunk by chunk.
 */
export function webBody(request: Request, headers: HttpRequest["headers"]): RequestBody {
  // A GET or HEAD Request never has a body (its constructor refuses one); asking `request.body`
  // would still make @hono/node-server build a whole Request for nothing.
  if (request.method === "GET" || request.method === "HEAD") return { kind: "none" };
  const length = headers["content-length"];
  if (length === "0") return { kind: "none" };
  if (length === undefined && headers["transfer-encoding"] === undefined && request.body === null)
    return { kind: "none" };
  return new WebBody(request, length);
}

/** A Request's body, read on demand (a class: no closures per request). */
class WebBody {
  readonly kind = "stream";
  readonly #request: Request;
  readonly #length: string | undefined;

  constructor(request: Request, length: string | undefined) {
    this.#request = request;
    this.#length = length;
  }

  read(limit: number): Promise<Uint8Array> {
    const request = this.#request;
    return this.#length === undefined
      ? readWebStream(() => request.body, limit, this.#length)
      : readWebBytes(request, limit, this.#length);
  }
}

export function webHeaders(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** Where @hono/node-server's Request keeps its IncomingMessage (a private symbol), once found. */
let incomingSymbol: symbol | undefined;

/**
 * Node's IncomingMessage behind `request` when @hono/node-server made it and passed it in `env`
 * (`{incoming}`), and `request` is still that very Request, not one a middleware built anew:
 * its headers are then read from Node as they are, sparing a Headers object per request (a few
 * µs). The server's lazy Request holds the message under a private symbol, found once by value.
 */
function nodeIncomingOf(request: Request, env: unknown): IncomingMessage | undefined {
  if (typeof env !== "object" || env === null) return undefined;
  const incoming = (env as { incoming?: IncomingMessage }).incoming;
  if (typeof incoming !== "object" || incoming === null || typeof incoming.headers !== "object") return undefined;
  const holder = request as unknown as Record<symbol, unknown>;
  if (incomingSymbol === undefined)
    incomingSymbol = Object.getOwnPropertySymbols(request).find((symbol) => holder[symbol] === incoming);
  return incomingSymbol !== undefined && holder[incomingSymbol] === incoming ? incoming : undefined;
}

/**
 * The client address when the runtime hands it over beside the Request: @hono/node-server passes
 * `{incoming}` (Node's IncomingMessage) as the second argument or as Hono's `c.env`.
 */
export function remoteAddressOf(env: unknown): string | undefined {
  if (typeof env !== "object" || env === null) return undefined;
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: unknown } } }).incoming;
  const address = incoming?.socket?.remoteAddress;
  return typeof address === "string" ? address : undefined;
}

/**
 * The body of @hono/node-server's own Request read straight from Node's stream while nothing has
 * touched it yet (no web stream made, no data listener, not read): `arrayBuffer()` would buffer it
 * in the server, copy it into an ArrayBuffer, and flagpost would wrap that again. Node's framing
 * rules then apply as on every other Node mount. Once read this way, the Request's own body
 * methods reject as for any body already used.
 */
function nodeBodyOf(request: Request, incoming: IncomingMessage): RequestBody | undefined {
  if (request.method === "GET" || request.method === "HEAD") return { kind: "none" };
  if (request.bodyUsed || incoming.readableDidRead || incoming.readableFlowing !== null) return undefined;
  return nodeStreamBody(incoming, incoming.headers);
}

export function fromWebRequest(
  request: Request,
  init: { path: string; query: URLSearchParams; basePath: string; body?: RequestBody; env?: unknown },
): HttpRequest {
  const incoming = nodeIncomingOf(request, init.env);
  const headers = incoming ? joinedHeaders(incoming.headers) : webHeaders(request);
  return {
    method: request.method,
    path: init.path,
    query: init.query,
    headers,
    body: init.body ?? (incoming && nodeBodyOf(request, incoming)) ?? webBody(request, headers),
    basePath: init.basePath,
    remoteAddress: remoteAddressOf(init.env),
  };
}

export function toWebResponse(response: HttpResponse): Response {
  // A streamed body is handed over as is: the runtime cancels it when the client goes away.
  const body = response.status === 204 || response.status === 304 ? null : (response.stream ?? response.body ?? null);
  return new Response(body, { status: response.status, headers: response.headers });
}

/** "/api/" → "/api", "/" → "", undefined → "". */
export function normalizeBasePath(basePath: string | undefined): string {
  if (!basePath || basePath === "/") return "";
  const withSlash = basePath.startsWith("/") ? basePath : `/${basePath}`;
  return withSlash.endsWith("/") ? withSlash.slice(0, -1) : withSlash;
}

/** The path below `basePath`, or undefined when `path` is not under it. */
export function stripBasePath(path: string, basePath: string): string | undefined {
  if (basePath === "") return path;
  if (path === basePath) return "/";
  return path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : undefined;
}
