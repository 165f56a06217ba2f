import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type HttpOptions, toNodeHandler } from "../../../adapters/http/index.js";
import { parseCorsOrigins } from "../../../adapters/http/ofrep/cors.js";
import type { Flagpost } from "../../../src/flagpost.js";
import { listen, type Running } from "../../support/servers.js";

/** A page's own origin: serves one HTML page that loads the bundled web client. */
export function startPageOrigin(script: string): Promise<Running> {
  const html =
    '<!doctype html><meta charset="utf-8"><title>flags</title><link rel="icon" href="data:,"><script src="/client.js"></script>';
  return listen(
    createServer((req, res) => {
      if (req.url === "/client.js") res.writeHead(200, { "content-type": "text/javascript" }).end(script);
      else if (req.url === "/") res.writeHead(200, { "content-type": "text/html" }).end(html);
      else res.writeHead(404).end();
    }),
  );
}

/** One request flagpost answered, as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  origin: string | undefined;
  ifNoneMatch: string | undefined;
  status: number;
  allowOrigin: string | undefined;
  retryAfter: string | undefined;
  /** When the answer's head was sent (Date.now()). */
  at: number;
  /** When the answer ended (a stream's, when the server or the client closed it); unset while open. */
  endedAt?: number;
}

/**
 * flagpost mounted as `flagpost serve` mounts it (toNodeHandler, default rate limits
 * unless `http` sets others, `FLAGPOST_CORS_ORIGINS` parsed the same way), with every answered request recorded so that the
 * test counts preflights, 304s and event streams on the server side, not from what the page claims.
 * `dropConnections()` cuts every open connection, as a network failure would.
 */
export async function startFlagpostOrigin(fp: Flagpost, corsOriginsEnv: string, http: HttpOptions = {}) {
  const seen: SeenRequest[] = [];
  const handle = toNodeHandler(fp, { ...http, corsOrigins: parseCorsOrigins(corsOriginsEnv) });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // The adapter passes its headers to writeHead, where getHeader cannot see them: catch them
    // there, and record the request then, so that an event stream shows as soon as it opens.
    let seenRequest: SeenRequest | undefined;
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      const sent = args.find((arg) => typeof arg === "object" && arg !== null) as Record<string, unknown> | undefined;
      const header = (name: string) => {
        const value = sent?.[name];
        return typeof value === "string" ? value : undefined;
      };
      seenRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        origin: req.headers.origin,
        ifNoneMatch: req.headers["if-none-match"],
        status: args[0] as number,
        allowOrigin: header("access-control-allow-origin"),
        retryAfter: header("retry-after"),
        at: Date.now(),
      };
      seen.push(seenRequest);
      return writeHead.apply(this, args as Parameters<typeof writeHead>);
    } as typeof writeHead;
    res.on("close", () => {
      if (seenRequest) seenRequest.endedAt = Date.now();
    });
    handle(req, res);
  });
  const running = await listen(server);
  return { ...running, seen, dropConnections: () => server.closeAllConnections() };
}
