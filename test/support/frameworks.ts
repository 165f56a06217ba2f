import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import {
  type HttpOptions,
  toExpress,
  toFastify,
  toFetchHandler,
  toHono,
  toNodeHandler,
} from "../../adapters/http/index.js";
import { createFlagpost, type Flagpost, type FlagpostOptions } from "../../src/flagpost.js";
import { type Logger, silentLogger } from "../../src/ports/logger.js";
import { memoryStorage } from "../../src/memory/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { listen, type Running } from "./servers.js";

/**
 * One real server per framework, each on an ephemeral port, so the shared HTTP cases in
 * test/http/cases run unchanged against every translator.
 */
export interface Target {
  /** Origin plus mount prefix: `${url}/v1/flags` is the flag list. */
  url: string;
  origin: string;
  /** Where flagpost is mounted ("" or "/api"); Location and Link headers start with it. */
  prefix: string;
  fp: Flagpost;
  /** A full_access key. */
  key: string;
  /**
   * Whether an app stands behind flagpost: then `${url}/status` answers 200 `{app: "ok"}` and
   * only /v1 (and /health, /ready) is flagpost's. Without one, every other path gets flagpost's JSON 404.
   */
  app: boolean;
  /** The app parses JSON bodies before flagpost (express.json()): its limit applies, not `bodyLimit`. */
  appParsesBodies: boolean;
  /**
   * The framework refuses a path with broken percent-encoding ("/v1/flags/%") itself, before
   * any handler or plugin runs: Fastify answers 400 FST_ERR_BAD_URL in its own shape.
   */
  rejectsMalformedPaths: boolean;
  close(): Promise<void>;
}

export interface StartOptions {
  http?: HttpOptions;
  storage?: Storage;
  logger?: Logger;
  /** Further createFlagpost options (flag stream keep-alive, sync intervals, …). */
  flagpost?: Partial<FlagpostOptions>;
}

export type Start = (options?: StartOptions) => Promise<Target>;

export interface Variant {
  name: string;
  start: Start;
}

async function makeFlagpost(options: StartOptions): Promise<{ fp: Flagpost; key: string }> {
  const fp = createFlagpost({
    ...options.flagpost,
    storage: options.storage ?? memoryStorage(),
    logger: options.logger ?? silentLogger,
  });
  await fp.ready();
  const { key } = await fp.keys.create({ name: "test", scopes: ["full_access"] });
  return { fp, key };
}

function target(
  running: Running,
  fp: Flagpost,
  key: string,
  prefix: string,
  extra: Pick<Target, "app" | "appParsesBodies" | "rejectsMalformedPaths">,
): Target {
  return {
    url: running.url + prefix,
    origin: running.url,
    prefix,
    fp,
    key,
    ...extra,
    close: async () => {
      await running.close();
      await fp.close();
    },
  };
}

function startNode(): Start {
  return async (options = {}) => {
    const { fp, key } = await makeFlagpost(options);
    const running = await listen(createServer(toNodeHandler(fp, options.http)));
    return target(running, fp, key, "", { app: false, appParsesBodies: false, rejectsMalformedPaths: false });
  };
}

function startExpress(mode: { prefix?: string; json?: boolean }): Start {
  return async (options = {}) => {
    const { fp, key } = await makeFlagpost(options);
    const prefix = mode.prefix ?? "";
    const app = express();
    if (mode.json) app.use(express.json({ limit: "1mb" }));
    app.get(`${prefix}/status`, (_req, res) => {
      res.json({ app: "ok" });
    });
    if (prefix) app.use(prefix, toExpress(fp, options.http));
    else app.use(toExpress(fp, options.http));
    app.use((_req, res) => {
      res.status(404).json({ app: "not found" });
    });
    const running = await listen(createServer(app));
    return target(running, fp, key, prefix, {
      app: true,
      appParsesBodies: mode.json === true,
      rejectsMalformedPaths: false,
    });
  };
}

function startFastify(mode: { prefix?: string }): Start {
  return async (options = {}) => {
    const { fp, key } = await makeFlagpost(options);
    const prefix = mode.prefix ?? "";
    // Closing ends every connection, as listen() does for the other servers: Fastify's default
    // ends only idle ones, and a keep-alive socket the client pool still holds can keep
    // app.close() waiting past the hook timeout.
    const app = Fastify({ forceCloseConnections: true });
    app.get(`${prefix}/status`, async () => ({ app: "ok" }));
    // A JSON route of the app's own, outside the plugin: Fastify's parsers must still work there.
    app.post(`${prefix}/echo`, async (request) => ({ echo: request.body }));
    await app.register(toFastify(fp, options.http), prefix ? { prefix } : {});
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as AddressInfo;
    const running: Running = { url: `http://127.0.0.1:${port}`, close: () => app.close() };
    return target(running, fp, key, prefix, { app: true, appParsesBodies: false, rejectsMalformedPaths: true });
  };
}

function startHono(mode: { prefix?: string }): Start {
  return async (options = {}) => {
    const { fp, key } = await makeFlagpost(options);
    const prefix = mode.prefix ?? "";
    const app = new Hono();
    app.get(`${prefix}/status`, (c) => c.json({ app: "ok" }));
    app.notFound((c) => c.json({ app: "not found" }, 404));
    if (prefix) {
      const api = new Hono();
      api.use(toHono(fp, options.http));
      app.route(prefix, api);
    } else {
      app.use(toHono(fp, options.http));
    }
    const running = await listen(createAdaptorServer({ fetch: app.fetch }) as Server);
    return target(running, fp, key, prefix, { app: true, appParsesBodies: false, rejectsMalformedPaths: false });
  };
}

function startFetch(): Start {
  return async (options = {}) => {
    const { fp, key } = await makeFlagpost(options);
    const running = await listen(createAdaptorServer({ fetch: toFetchHandler(fp, options.http) }) as Server);
    return target(running, fp, key, "", { app: false, appParsesBodies: false, rejectsMalformedPaths: false });
  };
}

export const VARIANTS = {
  node: { name: "node:http", start: startNode() },
  express: { name: "express", start: startExpress({}) },
  expressJson: { name: "express after express.json()", start: startExpress({ json: true }) },
  expressPrefix: { name: "express under /api", start: startExpress({ prefix: "/api" }) },
  fastify: { name: "fastify", start: startFastify({}) },
  fastifyPrefix: { name: "fastify with prefix /api", start: startFastify({ prefix: "/api" }) },
  hono: { name: "hono", start: startHono({}) },
  honoPrefix: { name: "hono routed under /api", start: startHono({ prefix: "/api" }) },
  fetch: { name: "fetch handler", start: startFetch() },
} satisfies Record<string, Variant>;
