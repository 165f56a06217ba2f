import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { createRemoteFlagClient } from "../../src/flags/remote/index.js";
import { type FlagClient, type FlagClientEvent, parseSnapshot } from "../../src/flags/client/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { waitUntil } from "./support/wait.js";

// createRemoteFlagClient against a real flagpost server (node:http on 127.0.0.1) that is stopped
// and started again on the same port.

/** A flagpost HTTP server that can be stopped and started again on the same port. */
class Restartable {
  server: Server | undefined;
  port = 0;
  /** Snapshot requests seen, by status. */
  readonly statuses: number[] = [];
  /** Stream requests seen. */
  streams = 0;
  /** Answer the stream route 404, as a server from before it would. */
  withoutStream = false;
  constructor(readonly fp: Flagpost) {}

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const handle = toNodeHandler(this.fp, { rateLimit: false });
    const server = createServer((req, res) => {
      if (req.url?.startsWith("/v1/flags/_snapshot")) res.on("finish", () => this.statuses.push(res.statusCode));
      if (req.url?.startsWith("/v1/flags/_stream")) {
        this.streams += 1;
        if (this.withoutStream) return void res.writeHead(404, { "content-type": "application/json" }).end("{}");
      }
      handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

let fp: Flagpost;
let server: Restartable;
let key: string;
const clients: FlagClient[] = [];

function remote(options: Partial<Parameters<typeof createRemoteFlagClient>[0]> = {}): FlagClient {
  const client = createRemoteFlagClient({
    url: server.url,
    apiKey: key,
    pollIntervalMs: 25,
    maxBackoffMs: 100,
    logger: silentLogger,
    ...options,
  });
  clients.push(client);
  return client;
}

beforeEach(async () => {
  fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
  await fp.ready();
  key = (await fp.keys.create({ name: "sdk", scopes: ["flags:read"] })).key;
  await fp.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });
  server = new Restartable(fp);
  await server.start();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server.stop();
  await fp.close();
});

describe("createRemoteFlagClient", () => {
  it("loads every flag, evaluates locally, and follows changes by polling with If-None-Match", async () => {
    const client = remote({ stream: false });
    await client.ready();
    expect(client.isEnabled("beta", { userId: "u1" })).toBe(true);
    expect(client.evaluate("beta", { userId: "u2" })).toEqual({ enabled: false, reason: "no_rule_match" });
    expect(client.evaluate("nope", { default: true })).toEqual({ enabled: true, reason: "flag_not_found" });

    await waitUntil(() => server.statuses.includes(304), { timeoutMs: 10_000 }); // unchanged: 304s
    const changes: FlagClientEvent[] = [];
    client.subscribe((event) => changes.push(event));
    await fp.flags.update("beta", { rules: [{ type: "users", userIds: ["u2"] }] });
    await waitUntil(() => client.isEnabled("beta", { userId: "u2" }), { timeoutMs: 10_000 });
    expect(changes).toContainEqual({ type: "changed", keys: ["beta"] });
    expect(server.statuses.filter((s) => s === 200).length).toBe(2); // the first load and the change
  });

  it("answers getVariant from the snapshot exactly as the server does, and follows variant changes", async () => {
    await fp.flags.create({
      key: "split",
      enabled: true,
      variants: [
        { key: "control", weight: 50 },
        { key: "treatment", weight: 50 },
      ],
    });
    const client = remote();
    await client.ready();
    for (const user of ["u1", "u2", "u3", "用户-7"]) {
      expect(client.getVariant("split", { userId: user })).toBe(
        (await fp.flags.evaluate("split", { userId: user })).variant,
      );
    }
    await fp.flags.update("split", {
      variants: [
        { key: "control", weight: 0 },
        { key: "treatment", weight: 100 },
      ],
    });
    await waitUntil(() => ["u1", "u2", "u3"].every((u) => client.getVariant("split", { userId: u }) === "treatment"), {
      timeoutMs: 10_000,
    });
  });

  it("keeps serving the last snapshot while the server is down, goes stale, and refreshes when it is back", async () => {
    const client = remote();
    await client.ready();
    const events: FlagClientEvent[] = [];
    client.subscribe((event) => events.push(event));

    await server.stop();
    await waitUntil(() => client.status === "stale", { timeoutMs: 10_000 });
    expect(client.isEnabled("beta", { userId: "u1" })).toBe(true);
    expect(client.evaluate("beta", { userId: "u1" })).toEqual({ enabled: true, reason: "rule_match", ruleIndex: 0 });

    await fp.flags.update("beta", { enabled: false }); // while the server is down
    expect(client.isEnabled("beta", { userId: "u1" })).toBe(true);
    await server.start();
    await waitUntil(() => !client.isEnabled("beta", { userId: "u1" }), { timeoutMs: 10_000 });
    expect(client.status).toBe("ready");
    expect(events.map((e) => e.type)).toEqual(["stale", "ready", "changed"]);
  });

  it("starts from a bootstrap file while the server is unreachable, then takes the server's flags", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flagpost-bootstrap-"));
    try {
      // The file is what the snapshot route returns, as `curl … /v1/flags/_snapshot > flags.json` saves it.
      const saved = await (
        await fetch(`${server.url}/v1/flags/_snapshot`, { headers: { authorization: `Bearer ${key}` } })
      ).text();
      const file = join(dir, "flags.json");
      await writeFile(file, saved);
      await server.stop();
      await fp.flags.update("beta", { rules: [{ type: "users", userIds: ["u9"] }] });

      const client = remote({ bootstrap: file });
      await client.ready(); // from the file, with the server down
      expect(client.isEnabled("beta", { userId: "u1" })).toBe(true);
      await server.start();
      await waitUntil(() => client.isEnabled("beta", { userId: "u9" }), { timeoutMs: 10_000 });
      expect(client.isEnabled("beta", { userId: "u1" })).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("bootstraps from data too, in any accepted form", async () => {
    await server.stop();
    const flags = [{ key: "on", enabled: true, rules: [] }];
    for (const bootstrap of [{ data: { flags } }, { flags }, flags]) {
      const client = remote({ bootstrap });
      await client.ready();
      expect(client.isEnabled("on")).toBe(true);
    }
    expect(() => parseSnapshot({ data: {} })).toThrow(/must be/);
    expect(() => parseSnapshot([{ enabled: true }])).toThrow(/string key/);
  });

  it("rejects ready() on a bad key or a key without flags:read, and stops asking", async () => {
    const bad = remote({ apiKey: "fp_not_a_key" });
    await expect(bad.ready()).rejects.toMatchObject({ code: "invalid_api_key" });
    expect(bad.status).toBe("failed");
    expect(bad.isEnabled("beta", { userId: "u1", default: true })).toBe(true);

    const browserKey = (await fp.keys.create({ name: "browser", scopes: ["flags:evaluate"] })).key;
    const restricted = remote({ apiKey: browserKey });
    await expect(restricted.ready()).rejects.toMatchObject({ code: "restricted_api_key" });

    // The stream's refusal can settle ready() while the first poll's answer is still on its way.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const seen = server.statuses.length;
    await fp.flags.update("beta", { enabled: false });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.statuses.length).toBe(seen);
  });

  it("rejects ready() after readyTimeoutMs when nothing loaded, keeps trying, and is ready once the server answers", async () => {
    await server.stop();
    const client = remote({ readyTimeoutMs: 100 });
    await expect(client.ready()).rejects.toMatchObject({ code: "unavailable" });
    expect(client.isEnabled("beta", { userId: "u1" })).toBe(false);
    await server.start();
    await client.ready();
    expect(client.isEnabled("beta", { userId: "u1" })).toBe(true);
  });

  it("follows changes over the stream, with polls paused while it is up", async () => {
    const client = remote();
    await client.ready();
    await waitUntil(() => fp.flagStream.size === 1, { timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 100)); // a poll in flight when the stream came up ends
    const polls = server.statuses.length;
    await fp.flags.update("beta", { rules: [{ type: "users", userIds: ["u7"] }] });
    await waitUntil(() => client.isEnabled("beta", { userId: "u7" }), { timeoutMs: 10_000 });
    await fp.flags.create({ key: "fresh", enabled: true });
    await waitUntil(() => client.isEnabled("fresh"), { timeoutMs: 10_000 });
    await fp.flags.delete("fresh");
    await waitUntil(() => client.evaluate("fresh").reason === "flag_not_found", { timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 200)); // eight poll intervals
    expect(server.statuses.length).toBe(polls);
    expect(server.streams).toBe(1);
  });

  it("falls back to polling when the server goes, keeps the last snapshot, and streams again when it is back", async () => {
    const client = remote();
    await client.ready();
    await waitUntil(() => fp.flagStream.size === 1, { timeoutMs: 10_000 });
    await fp.flags.update("beta", { description: "seen over the stream", rules: [{ type: "users", userIds: ["u5"] }] });
    await waitUntil(() => client.isEnabled("beta", { userId: "u5" }), { timeoutMs: 10_000 });

    await server.stop();
    await waitUntil(() => client.status === "stale", { timeoutMs: 10_000 }); // the fallback polls fail
    expect(client.isEnabled("beta", { userId: "u5" })).toBe(true); // the last good snapshot
    await fp.flags.update("beta", { rules: [{ type: "users", userIds: ["u6"] }] }); // while it is down
    const streamsBefore = server.streams;
    await server.start();
    await waitUntil(() => client.isEnabled("beta", { userId: "u6" }), { timeoutMs: 10_000 });
    expect(client.status).toBe("ready");
    await waitUntil(() => fp.flagStream.size === 1 && server.streams > streamsBefore, { timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const polls = server.statuses.length;
    await fp.flags.update("beta", { rules: [{ type: "users", userIds: ["u8"] }] });
    await waitUntil(() => client.isEnabled("beta", { userId: "u8" }), { timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.statuses.length).toBe(polls); // streaming again: no polls
  });

  it("polls a server that has no stream route", async () => {
    server.withoutStream = true;
    const client = remote();
    await client.ready();
    await fp.flags.update("beta", { rules: [{ type: "users", userIds: ["u4"] }] });
    await waitUntil(() => client.isEnabled("beta", { userId: "u4" }), { timeoutMs: 10_000 });
    expect(server.streams).toBe(1); // asked once, then polled
    expect(server.statuses.length).toBeGreaterThan(1);
  });
});
