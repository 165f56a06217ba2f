import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { createRemoteFlagClient } from "../../src/flags/remote/index.js";
import type { FlagClient } from "../../src/flags/client/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { waitUntil } from "./support/wait.js";

// Issue 25 item 8: the remote client's default logger is the core's (warnings and errors as JSON
// lines on stderr, docs/flags.md), and a client that loses its server says so once per outage,
// however many retries fail, instead of a line per attempt.

let fp: Flagpost;
let server: Server;
let port = 0;
let client: FlagClient | undefined;
let stderr: string[];
/** The connection the client's stream is on. */
let streamSocket: Socket | undefined;
let restore: () => void;

async function listen(): Promise<void> {
  const handle = toNodeHandler(fp, { rateLimit: false });
  server = createServer((req, res) => {
    if (req.url?.startsWith("/v1/flags/_stream")) streamSocket = req.socket;
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
}

async function stop(): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The JSON lines the default logger wrote, as `level msg`. */
const logged = () =>
  stderr
    .join("")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: string; msg: string })
    .map((line) => `${line.level} ${line.msg}`);

beforeEach(async () => {
  fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
  await fp.ready();
  await fp.flags.create({ key: "beta", enabled: true });
  port = 0;
  await listen();
  stderr = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true)) as typeof write;
  restore = () => (process.stderr.write = write);
});

afterEach(async () => {
  await client?.close();
  restore();
  if (server.listening) await stop();
  await fp.close();
});

async function connected(): Promise<FlagClient> {
  const { key } = await fp.keys.create({ name: "sdk", scopes: ["flags:read"] });
  // Short waits, so the outage below spans many failed polls and stream reconnections.
  const remote = createRemoteFlagClient({
    url: `http://127.0.0.1:${port}`,
    apiKey: key,
    pollIntervalMs: 25,
    maxBackoffMs: 100,
  });
  await remote.ready();
  await waitUntil(() => fp.flagStream.size === 1, { timeoutMs: 10_000 });
  return remote;
}

describe("the remote client's default logger", () => {
  it("warns once on stderr when the server goes, however many retries fail, and once again for the next outage", async () => {
    client = await connected();
    await stop();
    await waitUntil(() => client!.status === "stale", { timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // ≥ 15 failed polls and reconnections
    expect(logged()).toEqual(["warn cannot refresh flags from the server; serving the last snapshot"]);
    expect(client.isEnabled("beta", { userId: "u1" })).toBe(true);

    await listen(); // back on the same port: info lines only, which the default logger leaves out
    await waitUntil(() => client!.status === "ready" && fp.flagStream.size === 1, { timeoutMs: 10_000 });
    expect(logged()).toHaveLength(1);
    await stop();
    await waitUntil(() => logged().length === 2, { timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(logged()).toEqual([
      "warn cannot refresh flags from the server; serving the last snapshot",
      "warn cannot refresh flags from the server; serving the last snapshot",
    ]);
  }, 30_000);

  it("writes nothing when the stream drops but the server still answers (a proxy ending a long connection)", async () => {
    client = await connected();
    streamSocket!.destroy(); // only the stream's connection ends; the server keeps answering
    await waitUntil(() => fp.flagStream.size === 0, { timeoutMs: 10_000 });
    await waitUntil(() => fp.flagStream.size === 1, { timeoutMs: 10_000 }); // the client streams again
    expect(client.status).toBe("ready");
    expect(logged()).toEqual([]);
  }, 30_000);
});
