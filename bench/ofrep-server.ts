import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createFlagpost, memoryStorage } from "flagpost";
import { type HttpOptions, toNodeHandler } from "flagpost/http";
import { serveCalls } from "./lib/child.js";
import { silentLogger } from "./lib/silent-logger.js";
import { BULK_PATH, type OfrepServerReady, ofrepFlags, ofrepUsers } from "./ofrep-workload.js";

/**
 * One server of bench:ofrep, in a process of its own (bench/ofrep.ts pins it to core 0):
 * `node --import tsx bench/ofrep-server.ts <kind> <users>`. Kinds:
 * - `flagpost-node`: flagpost's toNodeHandler over memory storage holding the 100 flags, with a
 *   real `flags:evaluate` key and a rate limit that is computed but never reached. Every call of
 *   `fp.flags.evaluateCurrent` (what the evaluate and OFREP routes evaluate through) is counted,
 *   so the part can show a 304 evaluates nothing.
 * - `floor-node`: bare node:http answering the bulk route with the 100-flag body flagpost gives,
 *   serialised once at start: reading and parsing the request, and writing the bytes, only.
 */

const HTTP_OPTIONS: HttpOptions = { rateLimit: { burst: 1e9, perSecond: 1e9 } };

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function start(kind: string, userCount: number) {
  const users = ofrepUsers(userCount);
  const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
  await fp.ready();
  for (const flag of ofrepFlags(users)) await fp.flags.create(flag);
  const { key } = await fp.keys.create({ name: "bench", scopes: ["flags:evaluate"] });
  let evaluations = 0;
  const evaluateCurrent = fp.flags.evaluateCurrent.bind(fp.flags);
  fp.flags.evaluateCurrent = (flagKey, context) => {
    evaluations++;
    return evaluateCurrent(flagKey, context);
  };
  const handler = toNodeHandler(fp, HTTP_OPTIONS);
  let server: Server;
  if (kind === "flagpost-node") server = createServer(handler);
  else if (kind === "floor-node") {
    // flagpost's own answer for the first user, taken once through the real handler.
    const probe = createServer(handler);
    const port = await listen(probe);
    const answer = await fetch(`http://127.0.0.1:${port}${BULK_PATH}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ context: { targetingKey: users[0]!.id, plan: users[0]!.plan } }),
    });
    const bytes = Buffer.from(await answer.arrayBuffer());
    const etag = answer.headers.get("etag")!;
    probe.closeAllConnections();
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    server = createServer((req, res) => {
      readBody(req).then(
        (text) => {
          JSON.parse(text);
          res.writeHead(200, { "content-type": "application/json; charset=utf-8", etag, "cache-control": "no-cache" });
          res.end(bytes);
        },
        () => res.destroy(),
      );
    });
  } else throw new Error(`unknown server kind ${kind}; known: flagpost-node, floor-node`);
  const ready: OfrepServerReady = { port: await listen(server), key };
  return {
    ready,
    evaluations: () => evaluations,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fp.close();
    },
  };
}

const [kind = "", users = "200"] = process.argv.slice(2);
const started = start(kind, Number(users));
serveCalls(
  {
    /** Calls of evaluateCurrent so far. */
    evaluations: async () => (await started).evaluations(),
    cpu: () => {
      const usage = process.cpuUsage();
      return usage.user + usage.system;
    },
    close: async () => (await started).close(),
  },
  started.then((s) => s.ready),
);
