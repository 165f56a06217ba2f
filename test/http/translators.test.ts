import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { toExpress, toFastify, toFetchHandler, toHono } from "../../adapters/http/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { listen, type Running } from "../support/servers.js";

/** What the shared cases cannot reach: how each translator meets its framework's own habits. */

let running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

async function flagpost(): Promise<{ fp: Flagpost; key: string }> {
  const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
  await fp.ready();
  const { key } = await fp.keys.create({ scopes: ["full_access"] });
  return { fp, key };
}

async function serve(server: Server): Promise<string> {
  const r = await listen(server);
  running.push(r);
  return r.url;
}

const post = (url: string, key: string, body: string, contentType = "application/json") =>
  fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": contentType }, body });

describe("express", () => {
  it("refuses a form that express.urlencoded() already parsed into an object (415)", async () => {
    const { fp, key } = await flagpost();
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.use(toExpress(fp));
    const url = await serve(createServer(app));
    const reply = await post(`${url}/v1/flags`, key, "key=from-a-form", "application/x-www-form-urlencoded");
    expect(reply.status).toBe(415);
    expect(((await reply.json()) as { error: { code: string } }).error.code).toBe("unsupported_media_type");
    await expect(fp.flags.get("from-a-form")).rejects.toThrow(/not found/);
  });

  it("reads a body that express.text() or express.raw() kept as a string or Buffer", async () => {
    const { fp, key } = await flagpost();
    const app = express();
    app.use("/text", express.text({ type: "application/json" }), toExpress(fp));
    app.use("/raw", express.raw({ type: "application/json", limit: "5mb" }), toExpress(fp, { bodyLimit: 64 }));
    const url = await serve(createServer(app));
    expect((await post(`${url}/text/v1/flags`, key, JSON.stringify({ key: "via-text" }))).status).toBe(201);
    expect((await post(`${url}/raw/v1/flags`, key, JSON.stringify({ key: "via-raw" }))).status).toBe(201);
    // The Buffer is within express.raw()'s limit but past flagpost's own bodyLimit.
    expect(
      (await post(`${url}/raw/v1/flags`, key, JSON.stringify({ key: "too-long", description: "x".repeat(100) })))
        .status,
    ).toBe(413);
    expect((await post(`${url}/text/v1/flags`, key, "{broken")).status).toBe(400);
    expect((await fp.flags.get("via-text")).key).toBe("via-text");
    expect((await fp.flags.get("via-raw")).key).toBe("via-raw");
  });

  it("answers body-parser's own failures on /v1 in docs/api.md's shape, and leaves other paths' errors to the app", async () => {
    const { fp, key } = await flagpost();
    const app = express();
    app.use(express.json({ limit: 50 }));
    app.use(toExpress(fp));
    app.post("/elsewhere", (_req, res) => {
      res.json({ ok: true });
    });
    app.use((error: { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(error.status ?? 500).json({ app: "error handler" });
    });
    const url = await serve(createServer(app));
    const big = JSON.stringify({ key: "k", description: "x".repeat(100) });
    expect(await (await post(`${url}/v1/flags`, key, big)).json()).toMatchObject({
      error: { code: "payload_too_large" },
    });
    expect(await (await post(`${url}/v1/flags`, key, "{")).json()).toMatchObject({ error: { code: "invalid_json" } });
    expect(await (await post(`${url}/v1/flags`, key, "42")).json()).toMatchObject({
      error: { code: "validation_error" },
    });
    const anonymous = await fetch(`${url}/v1/flags`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(anonymous.status).toBe(401);
    const elsewhere = await post(`${url}/elsewhere`, key, "{");
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toEqual({ app: "error handler" });
  });
});

describe("fastify", () => {
  it("keeps Fastify's own JSON parsing for the app's routes outside the plugin", async () => {
    const { fp, key } = await flagpost();
    const app = Fastify();
    app.post("/echo", async (request) => ({ echo: request.body }));
    await app.register(toFastify(fp), { prefix: "/flagpost" });
    await app.listen({ port: 0, host: "127.0.0.1" });
    running.push({ url: "", close: () => app.close() });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const echo = await post(`${url}/echo`, key, JSON.stringify({ a: 1 }));
    expect(await echo.json()).toEqual({ echo: { a: 1 } });
    expect((await post(`${url}/echo`, key, "{")).status).toBe(400);
    const created = await post(`${url}/flagpost/v1/flags`, key, JSON.stringify({ key: "fastify" }));
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe("/flagpost/v1/flags/fastify");
  });

  it("answers a malformed percent-encoding in the path itself (400 FST_ERR_BAD_URL), before the plugin", async () => {
    const { fp, key } = await flagpost();
    const app = Fastify();
    await app.register(toFastify(fp));
    await app.listen({ port: 0, host: "127.0.0.1" });
    running.push({ url: "", close: () => app.close() });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const reply = await fetch(`${url}/v1/flags/%E0%A4%A`, { headers: { authorization: `Bearer ${key}` } });
    expect(reply.status).toBe(400);
    expect(((await reply.json()) as { code: string }).code).toBe("FST_ERR_BAD_URL");
  });
});

describe("hono", () => {
  it("takes the mount prefix from the pattern, parameters included", async () => {
    const { fp, key } = await flagpost();
    const app = new Hono();
    app.use("/t/:tenant/*", toHono(fp));
    // Not /health: flagpost answers its own probes under the mount (probes: false leaves them to the app).
    app.get("/t/:tenant/status", (c) => c.text("app"));
    const url = await serve(createAdaptorServer({ fetch: app.fetch }) as Server);
    const created = await post(`${url}/t/acme/v1/flags`, key, JSON.stringify({ key: "tenant-flag" }));
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe("/t/acme/v1/flags/tenant-flag");
    expect(await (await fetch(`${url}/t/acme/status`)).text()).toBe("app");
  });

  it("takes basePath from the options when given, and reads a body an earlier middleware already parsed", async () => {
    const { fp, key } = await flagpost();
    const app = new Hono();
    const seen: unknown[] = [];
    app.use("*", async (c, next) => {
      if (c.req.method === "POST") seen.push(await c.req.json().catch(() => "not json"));
      await next();
    });
    app.use("*", toHono(fp, { basePath: "/api" }));
    const url = await serve(createAdaptorServer({ fetch: app.fetch }) as Server);
    const created = await post(`${url}/api/v1/flags`, key, JSON.stringify({ key: "read-twice" }));
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe("/api/v1/flags/read-twice");
    expect(seen).toEqual([{ key: "read-twice" }]);
    expect((await post(`${url}/api/v1/flags`, key, "{")).status).toBe(400);
    expect((await fetch(`${url}/v1/flags`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(404);
  });
});

describe("fetch handler", () => {
  it("serves under basePath and answers other paths with a JSON 404", async () => {
    const { fp, key } = await flagpost();
    const handler = toFetchHandler(fp, { basePath: "/api/" });
    const created = await handler(
      new Request("http://x/api/v1/flags", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: '{"key":"in-process"}',
      }),
    );
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe("/api/v1/flags/in-process");
    const outside = await handler(new Request("http://x/v1/flags", { headers: { authorization: `Bearer ${key}` } }));
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ error: { code: "not_found" } });
    const deleted = await handler(
      new Request("http://x/api/v1/flags/in-process", {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}` },
      }),
    );
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
  });
});

describe("flagpost/http without the frameworks", () => {
  it("imports express, fastify and hono for their types only", () => {
    const dir = new URL("../../adapters/http/", import.meta.url);
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const source = readFileSync(new URL(file, dir), "utf8");
      const runtime = [
        ...source.matchAll(
          /^\s*import\s+(?!type\b)[^;]*?from\s+["']((?:express|fastify|hono|@hono\/[^"']+)(?:\/[^"']*)?)["']/gm,
        ),
      ];
      expect(
        runtime.map((m) => m[1]),
        file,
      ).toEqual([]);
      expect(source, file).not.toMatch(/\bimport\(\s*["'](express|fastify|hono)/);
    }
  });
});
