import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Kysely, SqliteDialect } from "kysely";
import { createFlagpost } from "flagpost";
import { toNodeHandler } from "flagpost/http";
import { kyselyStorage, withStatementCache } from "flagpost/kysely";
import { eventBatch, type StreamShape } from "./lib/event-data.js";
import { Meter } from "./lib/meter.js";
import { silentLogger } from "./lib/silent-logger.js";
import { openSqliteHandle, sqliteSize } from "./lib/sqlite-file.js";
import { fmt } from "./lib/stats.js";

/** The HTTP half of the events part: POST /v1/events/batch into `flagpost serve` on SQLite. */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSX = fileURLToPath(new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url));

export interface HttpSizes {
  total: number;
  batch: number;
  httpConnections: number;
}

const API_KEY = "fp_bench_events_key_0123456789";

interface Server {
  url: string;
  /** CPU seconds the server process has used so far, where the OS tells (Linux /proc). */
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

/** utime + stime of a process from /proc/<pid>/stat, in seconds (clock ticks of 1/100 s, Linux's USER_HZ). */
function procCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The HTTP server: `flagpost serve` in a child process (its own core), or in process for the smoke run. */
async function startServer(file: string, smoke: boolean): Promise<Server> {
  if (smoke) {
    const db = new Kysely<any>({
      dialect: new SqliteDialect({ database: withStatementCache(openSqliteHandle(file)) }),
    });
    const fp = createFlagpost({ storage: kyselyStorage(db, { destroyOnClose: true }), logger: silentLogger });
    await fp.ready();
    await fp.keys.ensure(API_KEY);
    const server = createServer(toNodeHandler(fp, { rateLimit: false }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      cpuSeconds: () => undefined,
      async stop() {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await fp.close();
      },
    };
  }
  const child: ChildProcess = spawn(process.execPath, ["--import", TSX, "cli/main.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, FLAGPOST_DB: file, PORT: "0", HOST: "127.0.0.1", FLAGPOST_API_KEY: API_KEY },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const line = seen.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("exit", (code) => reject(new Error(`flagpost serve exited (${code}) before listening`)));
  });
  child.stdout!.resume();
  return {
    url,
    cpuSeconds: () => procCpuSeconds(child.pid),
    async stop() {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

function post(agent: Agent, url: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/events/batch`, {
      method: "POST",
      agent,
      headers: {
        authorization: `Bearer ${API_KEY}`,
        "content-type": "application/json",
        "content-length": body.length,
      },
    });
    req.once("response", (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
    });
    req.once("error", reject);
    req.end(body);
  });
}

export async function httpIngest(
  sizes: HttpSizes,
  shape: StreamShape,
  dir: string,
  smoke: boolean,
  log: (line: string) => void,
): Promise<{ meter: Meter; size: number; serverCpuSeconds?: number }> {
  const file = join(dir, "http.db");
  // Every request carries the next 1,000 events of the stream, as live traffic would (replaying a
  // few bodies would insert old timestamps all over the indexes instead of at their newest end).
  // Bodies are serialised before the clock starts, so the client's work stays out of the timing.
  const bodies = Array.from({ length: sizes.total / sizes.batch }, (_, i) =>
    Buffer.from(JSON.stringify({ events: eventBatch(shape, i * sizes.batch, sizes.batch, 3) })),
  );
  const server = await startServer(file, smoke);
  const meter = new Meter();
  let serverCpuSeconds: number | undefined;
  try {
    const cpuBefore = server.cpuSeconds();
    const agent = new Agent({ keepAlive: true, maxSockets: sizes.httpConnections });
    const requests = sizes.total / sizes.batch;
    let next = 0;
    await meter.time(sizes.total, async () => {
      const worker = async () => {
        while (next < requests) {
          const body = bodies[next++]!;
          const status = await post(agent, server.url, body);
          if (status !== 202) throw new Error(`POST /v1/events/batch answered ${status}`);
        }
      };
      await Promise.all(Array.from({ length: sizes.httpConnections }, worker));
    });
    agent.destroy();
    const cpuAfter = server.cpuSeconds();
    if (cpuBefore !== undefined && cpuAfter !== undefined) serverCpuSeconds = cpuAfter - cpuBefore;
    log(`http: ${sizes.total} events in ${fmt(meter.wallMs / 1000, 1)} s`);
  } finally {
    await server.stop();
  }
  const handle = openSqliteHandle(file);
  const count = (handle.prepare("select count(*) as n from flagpost_events").get() as { n: number }).n;
  if (count !== sizes.total) throw new Error(`expected ${sizes.total} events over HTTP, found ${count}`);
  const size = sqliteSize(handle, file);
  handle.close();
  return { meter, size, serverCpuSeconds };
}
