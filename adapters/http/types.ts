import type { ApiKeyInfo, Scope } from "../../src/auth/index.js";

/**
 * The framework-free request and response. Translators (node.ts, express.ts, fastify.ts,
 * hono.ts, fetch.ts) only convert to and from these; every rule lives in handler.ts and routes/.
 */
export interface HttpRequest {
  method: string;
  /** Path below the mount point, without the query string: "/v1/flags/beta". */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Readonly<Record<string, string | undefined>>;
  body: RequestBody;
  /** Where the app mounted flagpost ("" at the root); prefixed to Link and Location headers. */
  basePath?: string;
  /** The client's address, for rate-limiting requests that carry no valid key. */
  remoteAddress?: string;
}

export type RequestBody =
  /** The request carries no body. */
  | { kind: "none" }
  /** Raw bytes still to read; `read` MUST reject with FlagpostError("payload_too_large") past `limit`. */
  | { kind: "stream"; read(limit: number): Promise<Uint8Array> }
  /** A framework already parsed the JSON (Express after `express.json()`). */
  | { kind: "parsed"; value: unknown };

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /**
   * Instead of `body`: bytes written as they come (Server-Sent Events), until the stream ends.
   * A translator MUST write each chunk at once and cancel the stream when the client goes away.
   */
  stream?: ReadableStream<Uint8Array>;
}

/** Resend's error body, flagpost's `{error: {...}}`, or OFREP's `{errorCode, errorDetails}` (ofrep/errors.ts). */
export type ErrorStyle = "resend" | "data" | "ofrep";

export interface RouteContext {
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when the request had none. */
  body: unknown;
  headers: Readonly<Record<string, string | undefined>>;
  apiKey: ApiKeyInfo;
  /** An absolute path for a Location or Link header: basePath + path (+ query). */
  href(path: string, query?: Record<string, string | undefined>): string;
}

export interface RouteResult {
  status: number;
  /** Serialised as JSON; omitted for 204. */
  body?: unknown;
  /** A streamed body instead (see HttpResponse.stream); `body` is then ignored. */
  stream?: ReadableStream<Uint8Array>;
  /** A body already encoded instead (its Content-Type, and Content-Encoding if any, in `headers`). */
  bytes?: Uint8Array;
  /** The JSON body as text already, instead of `body`: a route whose answer is a fixed shape writes it itself. */
  json?: string;
  headers?: Record<string, string>;
}

/** A route called with a flagpost API key holding `scope`. */
export interface KeyRoute {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Segments starting with ":" are parameters: "/v1/flags/:key/evaluate". */
  path: string;
  scope: Scope;
  /** Error body shape: Resend's for email routes, OFREP's for /ofrep/, `{error: {...}}` for the others. */
  style: ErrorStyle;
  /** Whether the route reads a JSON body. Routes that do not ignore any body sent. */
  body: boolean;
  /** Largest body in bytes; defaults to the handler's `bodyLimit` (1 MiB). */
  bodyLimit?: number;
  /**
   * The route answers from this process's memory (the flag snapshot), not from storage: while
   * storage is down, a key verified here within the last 10 minutes is still accepted
   * (`ApiKeys.verifyOrRemember`).
   */
  fromMemory?: true;
  handle(ctx: RouteContext): Promise<RouteResult>;
}

/**
 * The "scope" of a route a mail provider calls (`/v1/inbound/{provider}`): providers cannot send
 * a flagpost key, so such a route takes none and authenticates the provider's own way (its
 * signature or Basic credentials) inside `receive`, before reading anything else.
 */
export const PROVIDER_AUTH = "provider";

/** A route a mail provider calls: no API key; the raw body, since signatures cover its bytes. */
export interface ProviderRoute {
  method: "POST";
  path: string;
  scope: typeof PROVIDER_AUTH;
  style: ErrorStyle;
  bodyLimit: number;
  /** MUST refuse (missing_signature / invalid_signature) before it looks at or changes anything. */
  receive(request: {
    headers: Readonly<Record<string, string | undefined>>;
    body: Uint8Array;
    /** The path's `:name` segments. */
    params: Readonly<Record<string, string>>;
  }): Promise<RouteResult>;
}

export type Route = KeyRoute | ProviderRoute;
