import { errorFields } from "../../../src/ports/logger.js";
import type { Flagpost } from "../../../src/flagpost.js";
import { FlagpostError } from "../../../src/errors.js";
import { hasScope } from "../../../src/auth/index.js";
import type { FlagStreamSubscription } from "../../../src/flags/store/index.js";
import { errorResponse } from "../error-body.js";
import type { HttpRequest, HttpResponse } from "../types.js";
import type { FlagsVersion } from "./flags-version.js";
import { StreamConnections } from "./stream-connections.js";
import { OFREP_STREAM_PATH, type OfrepStreamOptions, STREAM_DEFAULTS, StreamLinks } from "./stream-links.js";

/**
 * `GET /ofrep/v1/stream?token=...&since=...` (docs/ofrep.md "Event streams", open-feature/protocol
 * ADR 0008): the stream a bulk answer's `eventStreams` links to. No API key (EventSource cannot
 * send one): the signed token is the credential, and its key must still exist, be unrevoked and
 * hold `flags:client`. It sends `data: {"type":"refetchEvaluation"}` once per batch of flag
 * changes from `fp.flagStream` (every flag is one the key can read: the bulk route evaluates them
 * all), and once on connecting when the flags moved since the link's `since` (a reconnecting
 * client missed them); keep-alive comments in between. No `id:` lines: a browser would send them
 * back as Last-Event-ID, a header that needs a CORS preflight, and a refetch needs no replay.
 */

const UTF8 = new TextEncoder();
const REFETCH = UTF8.encode('data: {"type":"refetchEvaluation"}\n\n');
const KEEP_ALIVE = UTF8.encode(": keep-alive\n\n");
/** A reconnection delay for EventSource, and a first line so that proxies pass the headers on at once. */
const PREAMBLE = UTF8.encode("retry: 1000\n: connected\n\n");
/** Chunks queued for a client that does not read before its stream is ended (each is a refetch or a comment). */
const MAX_QUEUED = 16;

const STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  // The URL holds a credential: nothing on the way may keep the answer.
  "cache-control": "no-store",
  "x-accel-buffering": "no",
};

type Decorate = (request: HttpRequest, response: HttpResponse) => HttpResponse;

/** Answers the event stream's path; undefined for any other. `decorate` adds the /ofrep/ CORS headers. */
export function ofrepEventStream(
  fp: Flagpost,
  versions: FlagsVersion,
  options: OfrepStreamOptions,
  decorate: Decorate,
): (request: HttpRequest) => Promise<HttpResponse> | undefined {
  const connections = new StreamConnections(
    fp,
    options.maxConnectionsPerKey ?? STREAM_DEFAULTS.maxConnectionsPerKey,
    options.keyCheckMs ?? STREAM_DEFAULTS.keyCheckMs,
  );
  const refused = (request: HttpRequest, error: unknown, headers: Record<string, string> = {}) =>
    decorate(request, errorResponse("ofrep", error, headers));

  async function open(request: HttpRequest): Promise<HttpResponse> {
    if (request.method !== "GET")
      return refused(
        request,
        new FlagpostError("method_not_allowed", `${request.method} is not allowed here; use GET`),
        {
          allow: "GET",
        },
      );
    await fp.ready();
    const checked = await fp.streamTokens.check(request.query.get("token") ?? "", fp.clock.now());
    if (!checked.ok)
      return refused(
        request,
        new FlagpostError(
          "invalid_api_key",
          checked.reason === "expired"
            ? "This stream link has expired; evaluate the flags again (POST /ofrep/v1/evaluate/flags) for a new one"
            : "This stream link's token is not valid",
        ),
      );
    const key = await fp.keys.active(checked.keyId);
    if (!key)
      return refused(
        request,
        new FlagpostError("invalid_api_key", "The key of this stream link was revoked or deleted"),
      );
    if (!hasScope(key.scopes, "flags:client"))
      return refused(request, new FlagpostError("restricted_api_key", "The key of this stream link cannot read flags"));
    return stream(request, checked.keyId);
  }

  async function stream(request: HttpRequest, keyId: string): Promise<HttpResponse> {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let subscription: FlagStreamSubscription | undefined;
    let open = true;
    const end = () => {
      if (!open) return;
      open = false;
      subscription?.close();
      release?.();
      controller.close();
    };
    const release = connections.admit(keyId, end);
    if (!release)
      return refused(
        request,
        new FlagpostError(
          "rate_limit_exceeded",
          `This key holds ${connections.count(keyId)} open streams, the most it may`,
        ),
        { "retry-after": "60" },
      );
    const body = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      cancel: () => {
        open = false;
        subscription?.close();
        release();
      },
    });
    const send = (bytes: Uint8Array) => {
      if (!open) return;
      controller.enqueue(bytes);
      // A client that stopped reading is not queued for without end: the stream ends after what
      // is queued, and on reconnecting the client is told to refetch (its link's `since` is old).
      if ((controller.desiredSize ?? 0) <= -MAX_QUEUED) end();
    };
    try {
      subscription = await fp.flagStream.subscribe({
        start: () => send(PREAMBLE),
        changed: () => send(REFETCH),
        keepAlive: () => send(KEEP_ALIVE),
        closed: end,
      });
    } catch (error) {
      release();
      // The flag stream is closed (the server is stopping) or could not load.
      return refused(request, new FlagpostError("unavailable", "The flag stream is not available", { cause: error }));
    }
    // Ended while subscribing (the key was revoked, or flagpost closed): nothing may stay subscribed.
    if (!open) subscription.close();
    try {
      // Read once subscribed, so that a change is either in this version or told as a batch.
      const { version } = await versions.current();
      if (!StreamLinks.current(request.query.get("since"), version)) send(REFETCH);
    } catch (error) {
      end();
      throw error;
    }
    return decorate(request, { status: 200, stream: body, headers: { ...STREAM_HEADERS } });
  }

  return (request) => {
    if (request.path !== OFREP_STREAM_PATH) return undefined;
    // Storage down (the secret or the key cannot be read) is a 503 with Retry-After, as on every route.
    return open(request).catch((error: unknown) => {
      if (!(error instanceof FlagpostError)) fp.logger.error("OFREP event stream failed", errorFields(error));
      return refused(request, error);
    });
  };
}
