import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type HttpOptions, toNodeHandler } from "../../../adapters/http/index.js";
import { parseCorsOrigins } from "../../../adapters/http/ofrep/cors.js";
import type { Flagpost } from "../../../src/internal.js";
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
  /** When the answer was sent (Date.now()). */
  at: number;
}

/**
 * flagpost mounted as `flagpost serve` mounts it (toNodeHandler, default rate limits
 * unless `http` sets others, `FLAGPOST_CORS_ORIGINS` parsed the same way), with every answered request recorded so that the
 * test counts preflights and 304s on the server side, not from what the page claims.
 */
export async function startFlagpostOrigin(fp: Flagpost, corsOriginsEnv: string, http: HttpOptions = {}) {
  const seen: SeenRequest[] = [];
  const handle = toNodeHandler(fp, { ...http, corsOrigins: parseCorsOrigins(corsOriginsEnv) });
  const running = await listen(
    createServer((req: IncomingMessage, res: ServerResponse) => {
      // The adapter passes its headers to writeHead, where getHeader cannot see them: catch them there.
      let sent: Record<string, unknown> | undefined;
      const writeHead = res.writeHead;
      res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
        sent = args.find((arg) => typeof arg === "object" && arg !== null) as Record<string, unknown> | undefined;
        return writeHead.apply(this, args as Parameters<typeof writeHead>);
      } as typeof writeHead;
      res.on("finish", () => {
        const header = (name: string) => {
          const value = sent?.[name];
          return typeof value === "string" ? value : undefined;
        };
        seen.push({
          method: req.method ?? "",
          path: req.url ?? "",
          origin: req.headers.origin,
          ifNoneMatch: req.headers["if-none-match"],
          status: res.statusCode,
          allowOrigin: header("access-control-allow-origin"),
          retryAfter: header("retry-after"),
          at: Date.now(),
        });
      });
      handle(req, res);
    }),
  );
  return { ...running, seen };
}
