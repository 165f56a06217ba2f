import type { IncomingMessage, ServerResponse } from "node:http";
import type { Flagpost } from "../../src/flagpost.js";
import { errorResponse } from "./error-body.js";
import { unmatchedResponse } from "./unmatched.js";
import { createHandler, type HttpOptions } from "./handler.js";
import { joinedHeaders } from "./node-headers.js";
import { nodeStreamBody } from "./read-body.js";
import type { HttpRequest, HttpResponse } from "./types.js";

export interface FromNodeOptions {
  /** Defaults to the request stream, read on demand. */
  body?: HttpRequest["body"];
  /** Where flagpost is mounted ("" at the root). */
  basePath?: string;
  /** Path and query below the mount point; defaults to `req.url`. */
  url?: string;
}

/** Converts Node's IncomingMessage into the framework-free request. */
export function fromNodeRequest(req: IncomingMessage, options: FromNodeOptions = {}): HttpRequest {
  const url = options.url ?? req.url ?? "/";
  const q = url.indexOf("?");
  return {
    method: req.method ?? "GET",
    path: q < 0 ? url : url.slice(0, q),
    query: new URLSearchParams(q < 0 ? "" : url.slice(q + 1)),
    headers: joinedHeaders(req.headers),
    body: options.body ?? nodeStreamBody(req, req.headers),
    basePath: options.basePath ?? "",
    remoteAddress: req.socket?.remoteAddress,
  };
}

export function writeNodeResponse(res: ServerResponse, response: HttpResponse): void {
  res.writeHead(response.status, response.headers);
  if (response.stream) void pipeStream(res, response.stream);
  else res.end(response.body);
}

/**
 * Writes a streamed body chunk by chunk: headers at once, each chunk as it comes, waiting for
 * the socket to drain when it is full (so a slow client slows the stream, which then drops it),
 * and cancels the stream when the client goes away.
 */
async function pipeStream(res: ServerResponse, stream: ReadableStream<Uint8Array>): Promise<void> {
  res.flushHeaders();
  const reader = stream.getReader();
  let gone = false;
  let resume: (() => void) | undefined;
  const onClose = () => {
    gone = true;
    resume?.();
    reader.cancel().catch(() => undefined);
  };
  res.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          resume = resolve;
          res.once("drain", resolve);
        });
        if (resume) res.off("drain", resume);
        resume = undefined;
      }
    }
    if (!gone) res.end();
  } catch {
    res.destroy(); // the stream failed (or dropped a client too slow to keep up)
  } finally {
    res.off("close", onClose);
  }
}

/**
 * `http.createServer(toNodeHandler(fp))`: serves /v1 (and the dashboard when enabled); any other
 * path gets a JSON 404 (unmatched.ts). Also usable as connect-style middleware: with `next`, other paths go on.
 */
export function toNodeHandler(fp: Flagpost, options?: HttpOptions) {
  const handle = createHandler(fp, options);
  return (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void => {
    const request = fromNodeRequest(req);
    handle(request).then(
      (response) => {
        if (response) writeNodeResponse(res, response);
        else if (next) next();
        else writeNodeResponse(res, unmatchedResponse(request, options));
      },
      (error: unknown) => {
        // createHandler answers every /v1 error itself (in its route's style); only a fault outside
        // /v1 (the dashboard) or in the socket lands here.
        if (next) next(error);
        else if (!res.headersSent) writeNodeResponse(res, errorResponse("data", error));
        else res.destroy();
      },
    );
  };
}
