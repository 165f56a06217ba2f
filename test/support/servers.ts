import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type HttpOptions, toNodeHandler } from "../../adapters/http/index.js";
import { createFlagpost, type Flagpost, type FlagpostOptions } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";

export interface Running {
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 with an ephemeral port. */
export async function listen(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** An app that serves `handle` under /api (stripping the prefix, as a mounting app would) and 404s the rest. */
export function listenUnderApi(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Running> {
  return listen(
    createServer((req, res) => {
      if (req.url?.startsWith("/api/")) {
        req.url = req.url.slice("/api".length);
        handle(req, res);
      } else res.writeHead(404).end();
    }),
  );
}

export interface TestApp extends Running {
  fp: Flagpost;
  /** A full_access key. */
  key: string;
  /** fetch with the key and JSON content type preset. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** A Flagpost on memory storage (unless given) behind a real node:http server. */
export async function startApp(options: Partial<FlagpostOptions> & { http?: HttpOptions } = {}): Promise<TestApp> {
  const fp = createFlagpost({ storage: options.storage ?? memoryStorage(), logger: silentLogger, ...options });
  await fp.ready();
  const { key } = await fp.keys.create({ name: "test", scopes: ["full_access"] });
  const running = await listen(createServer(toNodeHandler(fp, options.http)));
  return {
    ...running,
    fp,
    key,
    call: (method, path, body, headers = {}) =>
      fetch(running.url + path, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      }),
    close: async () => {
      await running.close();
      await fp.close();
    },
  };
}
