import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import type { Flagpost } from "../../src/flagpost.js";
import { FlagpostError } from "../../src/errors.js";
import { DEFAULT_DASHBOARD_PATH, normalizeDashboardPath } from "./dashboard/serve.js";
import { HEALTH_PATH, READY_PATH } from "./probes.js";
import { notFoundResponse } from "./error-body.js";
import { createHandler, type HttpOptions } from "./handler.js";
import { fromNodeRequest } from "./node.js";
import { failedBody, nodeStreamBody } from "./read-body.js";
import type { RequestBody } from "./types.js";

/* The subset of Fastify's types this plugin uses, typed here so fastify stays an optional peer. */

export interface FastifyRequestLike {
  raw: IncomingMessage;
  /** The URL as received, with the registration prefix and the query. */
  url: string;
  body?: unknown;
}

export interface FastifyReplyLike {
  raw: ServerResponse;
  code(statusCode: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(payload?: unknown): FastifyReplyLike;
}

type ParserDone = (error: Error | null, body?: unknown) => void;

export interface FastifyInstanceLike {
  readonly prefix: string;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    parser: (request: FastifyRequestLike, payload: IncomingMessage, done: ParserDone) => void,
  ): void;
  setErrorHandler(handler: (error: Error, request: FastifyRequestLike, reply: FastifyReplyLike) => unknown): unknown;
  all(path: string, handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>): unknown;
  addHook(name: "preClose", hook: () => Promise<void>): unknown;
}

export type FastifyPlugin = (instance: FastifyInstanceLike) => Promise<void>;

function isReadable(value: unknown): value is Readable {
  return typeof value === "object" && value !== null && typeof (value as Readable).pipe === "function";
}

/** Fastify's own content-type errors, raised before the handler runs, as docs/api.md's codes. */
function fastifyBodyError(error: Error): FlagpostError | undefined {
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code !== "string" || !(code.startsWith("FST_ERR_CTP_") || code === "FST_ERR_ROUTE_MISSING_CONTENT_TYPE"))
    return undefined;
  if (statusCode === 413) return new FlagpostError("payload_too_large", undefined, { cause: error });
  if (statusCode === 415)
    return new FlagpostError("unsupported_media_type", 'Send the body as JSON with "Content-Type: application/json"', {
      cause: error,
    });
  return new FlagpostError("invalid_json", "The request body could not be read", { cause: error });
}

/** The URL below the registration prefix; the prefix is matched as Fastify's router may have (any case). */
function stripPrefix(url: string, prefix: string, lowerPrefix: string): string {
  if (url.startsWith(prefix) || url.slice(0, prefix.length).toLowerCase() === lowerPrefix)
    return url.slice(prefix.length);
  return url;
}

/**
 * A Fastify plugin serving /v1, /health, /ready and the dashboard: `app.register(toFastify(fp))`, or with `{ prefix: "/api" }`.
 * Inside its own encapsulated context it swaps Fastify's body parsers for a pass-through, so
 * the raw stream reaches flagpost, which applies docs/api.md's 400/413/415 rules after the key check.
 * The app's parsers and limits elsewhere are untouched.
 */
export function toFastify(fp: Flagpost, options?: HttpOptions): FastifyPlugin {
  const handle = createHandler(fp, options);
  const dashboard = options?.dashboard;
  const dashboardPath =
    dashboard === false ? undefined : normalizeDashboardPath(dashboard?.path ?? DEFAULT_DASHBOARD_PATH);
  return async (instance) => {
    const prefix = instance.prefix;
    const lowerPrefix = prefix.toLowerCase();

    // Streams being sent (the flag stream): `app.close()` waits for open connections, so they end first.
    const streaming = new Set<ServerResponse>();
    instance.addHook("preClose", async () => {
      for (const res of streaming) res.end();
    });

    const serve = async (request: FastifyRequestLike, reply: FastifyReplyLike, body?: RequestBody) => {
      // Routes are registered under the prefix, so the URL nearly always starts with it as written.
      const url = prefix === "" ? request.url : stripPrefix(request.url, prefix, lowerPrefix);
      const stream = isReadable(request.body) ? request.body : request.raw;
      const httpRequest = fromNodeRequest(request.raw, {
        url,
        basePath: prefix,
        body: body ?? nodeStreamBody(stream, request.raw.headers),
      });
      const response = (await handle(httpRequest)) ?? notFoundResponse(httpRequest.path);
      reply.code(response.status).headers(response.headers);
      if (response.stream) {
        streaming.add(reply.raw);
        reply.raw.once("close", () => streaming.delete(reply.raw));
        // Fastify writes a web stream chunk by chunk and cancels it when the client goes away.
        return reply.send(response.stream);
      }
      return reply.send(response.body);
    };

    instance.removeAllContentTypeParsers();
    const passThrough = (_request: FastifyRequestLike, payload: IncomingMessage, done: ParserDone) =>
      done(null, payload);
    instance.addContentTypeParser("*", passThrough);
    // Also under JSON's own name: Fastify caches the parser it found for a Content-Type, but not
    // the catch-all, which it would otherwise look for again on every request (parsing the header).
    instance.addContentTypeParser("application/json", passThrough);
    instance.setErrorHandler((error, request, reply) => {
      const failure = fastifyBodyError(error);
      if (!failure) throw error; // not ours: the app's error handler decides
      return serve(request, reply, failedBody(failure));
    });
    instance.all("/v1", (request, reply) => serve(request, reply));
    instance.all("/v1/*", (request, reply) => serve(request, reply));
    if (options?.probes !== false) {
      instance.all(HEALTH_PATH, (request, reply) => serve(request, reply));
      instance.all(READY_PATH, (request, reply) => serve(request, reply));
    }
    // Fastify routes only what is registered: the dashboard's paths too, as the other mounts serve them.
    if (dashboardPath !== undefined) {
      instance.all(dashboardPath, (request, reply) => serve(request, reply));
      instance.all(`${dashboardPath}/*`, (request, reply) => serve(request, reply));
    }
  };
}
