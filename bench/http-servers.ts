import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createHash, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFlagpost, type Flagpost, memoryStorage, type Scope } from "flagpost";
import { type HttpOptions, toExpress, toFastify, toHono, toNodeHandler } from "flagpost/http";
import { benchUsers, ROUTES, SERVER_KINDS, type ServerKind, type ServerReady } from "./http-workload.js";
import { serveCalls } from "./lib/child.js";
import { type FlagSet, flagpostRules, makeFlagSet } from "./lib/flag-set.js";
import { floorEvaluator } from "./lib/floor-evaluator.js";
import { silentLogger } from "./lib/silent-logger.js";

/**
 * One server of bench:http, in a process of its own (bench/http.ts starts it pinned to one core):
 * `node --import tsx bench/http-servers.ts <kind> [memory|sqlite]`. Kinds:
 * - `floor-node`: bare node:http answering the same JSON with a hand-written evaluator (the floor)
 * - `floor-fastify`, `floor-express`, `floor-hono`: the same on bare Fastify (its JSON parser, no
 *   schema), bare Express 5 (`express.json()`) and bare Hono on @hono/node-server (`c.req.json()`)
 * - `flagpost-node-no-metrics`: flagpost's node handler with `metrics: false` (no request series)
 * - `flagpost-node`, `flagpost-express`, `flagpost-fastify`, `flagpost-hono`: flagpost's handler
 *   and its mounts, with a real API key and a rate limit that is computed but never reached.
 * To profile one on dist/ (after `npm run build`), under an IPC parent:
 * `TSX_TSCONFIG_PATH=bench/tsconfig.run.json node --cpu-prof --import tsx bench/http-servers.ts flagpost-node`,
 * or run the part with BENCH_HTTP_PROFILE=<dir> (see bench/http.ts).
 */

/** Never reached at any rate this machine can serve, but computed on every request. */
const HTTP_OPTIONS: HttpOptions = { rateLimit: { burst: 1e9, perSecond: 1e9 } };
const SCOPES: Scope[] = [...new Set(Object.values(ROUTES).map((r) => r.scope))];

// --- the floors -------------------------------------------------------------------------------

const EVALUATE_PATH = ROUTES.evaluate.path;
const EVENTS_PATH = ROUTES.events.path;
const SNAPSHOT_PATH = ROUTES.snapshot.path;

/**
 * The floors' snapshot: the 20 flags in flagpost's shape (ids, timestamps and all), serialised
 * and hashed once at start, as a server with the flags in memory would answer them.
 */
function floorSnapshot(flags: FlagSet): { body: Buffer; headers: Record<string, string> } {
  const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
  const list = flagpostRules(flags)
    .map((f) => ({
      id: randomUUID(),
      description: "",
      variants: [],
      prerequisites: [],
      ...f,
      createdAt: at,
      updatedAt: at,
    }))
    .sort((a, b) => (a.key < b.key ? -1 : 1));
  const json = JSON.stringify(list);
  const version = createHash("sha256").update(json).digest("base64url").slice(0, 27);
  return {
    body: Buffer.from(`{"data":{"version":"${version}","flags":${json}}}`),
    headers: { "content-type": "application/json; charset=utf-8", etag: `"${version}"`, "cache-control": "no-cache" },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}

function floorNode(flags: FlagSet): Server {
  const evaluate = floorEvaluator(flags);
  const snapshot = floorSnapshot(flags);
  return createServer((req, res) => {
    if (req.method === "GET" && req.url === SNAPSHOT_PATH) {
      res.writeHead(200, snapshot.headers);
      res.end(snapshot.body);
      return;
    }
    if (req.method === "POST" && req.url === EVALUATE_PATH) {
      readBody(req).then(
        (text) => sendJson(res, 200, { data: evaluate(JSON.parse(text)) }),
        () => res.destroy(),
      );
    } else if (req.method === "POST" && req.url === EVENTS_PATH) {
      readBody(req).then(
        (text) => {
          JSON.parse(text);
          sendJson(res, 202, { data: { id: randomUUID(), status: "accepted" } });
        },
        () => res.destroy(),
      );
    } else {
      sendJson(res, 404, { error: { code: "not_found" } });
    }
  });
}

// Frameworks and drivers are imported by the kinds that use them: each process loads only its own.
const fastify = async () => (await import("fastify")).default;

async function floorFastify(flags: FlagSet): Promise<{ port: number; close(): Promise<void> }> {
  const evaluate = floorEvaluator(flags);
  const app = (await fastify())();
  app.post("/v1/flags/:key/evaluate", async (request) => ({ data: evaluate((request.body ?? {}) as never) }));
  app.post(EVENTS_PATH, async (_request, reply) =>
    reply.code(202).send({ data: { id: randomUUID(), status: "accepted" } }),
  );
  const snapshot = floorSnapshot(flags);
  app.get(SNAPSHOT_PATH, async (_request, reply) => reply.headers(snapshot.headers).send(snapshot.body));
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

async function floorExpress(flags: FlagSet): Promise<Server> {
  const evaluate = floorEvaluator(flags);
  const snapshot = floorSnapshot(flags);
  const { default: express } = await import("express");
  const app = express();
  app.use(express.json());
  app.post("/v1/flags/:key/evaluate", (req, res) => void res.json({ data: evaluate((req.body ?? {}) as never) }));
  app.post(EVENTS_PATH, (_req, res) => void res.status(202).json({ data: { id: randomUUID(), status: "accepted" } }));
  app.get(SNAPSHOT_PATH, (_req, res) => void res.set(snapshot.headers).send(snapshot.body));
  return createServer(app);
}

async function floorHono(flags: FlagSet): Promise<Server> {
  const evaluate = floorEvaluator(flags);
  const snapshot = floorSnapshot(flags);
  const [{ Hono }, { createAdaptorServer }] = await Promise.all([import("hono"), import("@hono/node-server")]);
  const app = new Hono();
  app.post("/v1/flags/:key/evaluate", async (c) => c.json({ data: evaluate(await c.req.json()) }));
  app.post(EVENTS_PATH, async (c) => {
    await c.req.json();
    return c.json({ data: { id: randomUUID(), status: "accepted" } }, 202);
  });
  app.get(SNAPSHOT_PATH, (c) => c.body(new Uint8Array(snapshot.body), 200, snapshot.headers));
  return createAdaptorServer({ fetch: app.fetch }) as Server;
}

// --- flagpost ---------------------------------------------------------------------------------

async function flagpostInstance(
  flags: FlagSet,
  storageKind: string,
): Promise<{ fp: Flagpost; key: string; cleanup(): void }> {
  let cleanup = () => undefined as void;
  let storage = memoryStorage();
  if (storageKind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "flagpost-bench-http-"));
    cleanup = () => rmSync(dir, { recursive: true, force: true });
    // As `flagpost serve` opens it: WAL, busy_timeout, synchronous=FULL.
    const [{ openSqliteDatabase }, { kyselyStorage }] = await Promise.all([
      import("./lib/sqlite-file.js"),
      import("flagpost/kysely"),
    ]);
    storage = kyselyStorage(openSqliteDatabase(join(dir, "flagpost.db")), { destroyOnClose: true });
  }
  const fp = createFlagpost({ storage, logger: silentLogger });
  await fp.ready();
  for (const flag of flagpostRules(flags)) await fp.flags.create(flag);
  const { key } = await fp.keys.create({ name: "bench", scopes: SCOPES });
  return { fp, key, cleanup };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

interface Started {
  ready: ServerReady;
  close(): Promise<void>;
  /** Forgets what earlier runs stored (events), so every run starts from the same state. */
  reset?(): Promise<void>;
}

async function start(kind: ServerKind, storageKind: string): Promise<Started> {
  const flags = makeFlagSet(benchUsers());
  if (kind === "floor-node") {
    const server = floorNode(flags);
    return { ready: { port: await listen(server), key: "" }, close: () => closeServer(server) };
  }
  if (kind === "floor-fastify") {
    const app = await floorFastify(flags);
    return { ready: { port: app.port, key: "" }, close: app.close };
  }
  if (kind === "floor-express" || kind === "floor-hono") {
    const server = kind === "floor-express" ? await floorExpress(flags) : await floorHono(flags);
    return { ready: { port: await listen(server), key: "" }, close: () => closeServer(server) };
  }
  const { fp, key, cleanup } = await flagpostInstance(flags, storageKind);
  const done = async () => {
    await fp.close();
    cleanup();
  };
  const reset = async () => void (await fp.events.purgeBefore(new Date(Date.now() + 60_000)));
  if (kind === "flagpost-fastify") {
    const app = (await fastify())();
    await app.register(toFastify(fp, HTTP_OPTIONS));
    await app.listen({ port: 0, host: "127.0.0.1" });
    return {
      ready: { port: (app.server.address() as AddressInfo).port, key },
      close: async () => (await app.close(), done()),
      reset,
    };
  }
  let server: Server;
  if (kind === "flagpost-node") {
    server = createServer(toNodeHandler(fp, HTTP_OPTIONS));
  } else if (kind === "flagpost-node-no-metrics") {
    // No GET /metrics and no request series: what the default (metrics on) row is held to.
    server = createServer(toNodeHandler(fp, { ...HTTP_OPTIONS, metrics: false }));
  } else if (kind === "flagpost-express") {
    const { default: express } = await import("express");
    const app = express();
    app.use(toExpress(fp, HTTP_OPTIONS));
    server = createServer(app);
  } else {
    const [{ Hono }, { createAdaptorServer }] = await Promise.all([import("hono"), import("@hono/node-server")]);
    const app = new Hono();
    app.use(toHono(fp, HTTP_OPTIONS));
    server = createAdaptorServer({ fetch: app.fetch }) as Server;
  }
  return { ready: { port: await listen(server), key }, close: async () => (await closeServer(server), done()), reset };
}

const [kind, storageKind = "memory"] = process.argv.slice(2);
if (!SERVER_KINDS.includes(kind as ServerKind))
  throw new Error(`unknown server kind ${kind}; known: ${SERVER_KINDS.join(", ")}`);
const started = start(kind as ServerKind, storageKind);
serveCalls(
  {
    /** CPU time this process used so far (user + system, µs), to tell a saturated server from a starved one. */
    cpu: () => {
      const usage = process.cpuUsage();
      return usage.user + usage.system;
    },
    reset: async () => (await started).reset?.(),
    close: async () => (await started).close(),
  },
  started.then((s) => s.ready),
);
