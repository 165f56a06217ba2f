import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { createHandler, type Handler, type RateLimitOptions } from "../../adapters/http/index.js";
import { kyselyStorage, postgresRateLimitStore } from "../../adapters/kysely/index.js";
import { redisRateLimitStore } from "../../adapters/redis/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { type Logger, silentLogger } from "../../src/ports/logger.js";
import { memoryStorage } from "../../src/memory/index.js";
import type { RateLimitStore } from "../../src/ports/rate-limit-store.js";
import { closedPort } from "../support/smtp-sink.js";
import { fakeClock } from "../support/fake-clock.js";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { describeIfRedis, redisUrl, uniqueRedisPrefix } from "../support/redis.js";

/**
 * Issue 11, item 10: two handlers standing for two processes (each with its own Flagpost, pool
 * and store client) share one limit through a store, so together they allow the configured
 * number of requests, not twice it. The window is 100 s (burst 10 at 0.1/s), far longer than a
 * test, so the counts are exact on any machine.
 */

const LIMIT = { burst: 10, perSecond: 0.1 };
const REQUESTS = 30;

interface Process {
  fp: Flagpost;
  handle: Handler;
}

async function alternate(
  processes: Process[],
  key: string,
): Promise<{ statuses: number[]; last: Record<string, string> }> {
  const statuses: number[] = [];
  let last: Record<string, string> = {};
  for (let i = 0; i < REQUESTS; i += 1) {
    const response = await processes[i % processes.length]!.handle({
      method: "GET",
      path: "/v1/flags",
      query: new URLSearchParams(),
      headers: { authorization: `Bearer ${key}` },
      body: { kind: "none" },
      remoteAddress: "127.0.0.1",
    });
    statuses.push(response!.status);
    last = response!.headers;
  }
  return { statuses, last };
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe("a rate limit without a store", () => {
  it("is counted per process: two processes allow twice the limit", async () => {
    const fp = createFlagpost({ storage: memoryStorage() });
    const { key } = await fp.keys.create({ scopes: ["flags:read"] });
    const processes = [0, 1].map(() => ({ fp, handle: createHandler(fp, { rateLimit: LIMIT }) }));
    const { statuses } = await alternate(processes, key);
    expect(count(statuses, 200)).toBe(2 * LIMIT.burst);
  });
});

describeIfBackend("postgres", "a rate limit shared through PostgreSQL", () => {
  let database: TestDatabase | undefined;
  const opened: Flagpost[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((fp) => fp.close()));
    await database?.drop();
    database = undefined;
  });

  it("lets two processes together make the configured number of requests", async () => {
    database = await createTestDatabase("postgres");
    const processes: Process[] = [];
    for (let i = 0; i < 2; i += 1) {
      const db = database.open();
      const fp = createFlagpost({ storage: kyselyStorage(db) });
      await fp.ready(); // migrates: the counters' table is there before the first request
      opened.push(fp);
      const rateLimit: RateLimitOptions = { ...LIMIT, store: await postgresRateLimitStore(db) };
      processes.push({ fp, handle: createHandler(fp, { rateLimit }) });
    }
    const { key } = await processes[0]!.fp.keys.create({ scopes: ["flags:read"] });
    const { statuses, last } = await alternate(processes, key);
    expect(count(statuses, 200)).toBe(LIMIT.burst);
    expect(statuses.slice(0, LIMIT.burst)).toEqual(Array(LIMIT.burst).fill(200));
    expect(count(statuses, 429)).toBe(REQUESTS - LIMIT.burst);
    expect(last["ratelimit-limit"]).toBe("10");
    expect(last["ratelimit-remaining"]).toBe("0");
    expect(Number(last["retry-after"])).toBeGreaterThan(0);
    expect(Number(last["retry-after"])).toBeLessThanOrEqual(100);
  });

  it("refuses a Kysely instance that is not PostgreSQL", async () => {
    const sqlite = await createTestDatabase("sqlite");
    try {
      await expect(postgresRateLimitStore(sqlite.db)).rejects.toMatchObject({ code: "validation_error" });
    } finally {
      await sqlite.drop();
    }
  });
});

describeIfRedis("a rate limit shared through Redis", () => {
  const clients: Redis[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });

  function connect(url: string): Redis {
    const client = new Redis(url, { enableOfflineQueue: false, lazyConnect: true });
    client.on("error", () => undefined); // the store reports failures itself
    clients.push(client);
    return client;
  }

  it("lets two processes together make the configured number of requests", async () => {
    const fp = createFlagpost({ storage: memoryStorage() });
    const { key } = await fp.keys.create({ scopes: ["flags:read"] });
    const keyPrefix = uniqueRedisPrefix();
    const processes: Process[] = [];
    for (let i = 0; i < 2; i += 1) {
      const client = connect(redisUrl()!);
      await client.connect();
      const store = await redisRateLimitStore(client, { keyPrefix });
      processes.push({ fp, handle: createHandler(fp, { rateLimit: { ...LIMIT, store } }) });
    }
    const { statuses, last } = await alternate(processes, key);
    expect(count(statuses, 200)).toBe(LIMIT.burst);
    expect(count(statuses, 429)).toBe(REQUESTS - LIMIT.burst);
    expect(last["ratelimit-remaining"]).toBe("0");
    await clients[0]!.del(...(await clients[0]!.keys(`${keyPrefix}:*`)));
  });

  it("counts in the process while the store cannot answer, and says so once", async () => {
    const warnings: string[] = [];
    const logger: Logger = { info() {}, warn: (message) => void warnings.push(message), error() {} };
    const fp = createFlagpost({ storage: memoryStorage(), logger });
    const { key } = await fp.keys.create({ scopes: ["flags:read"] });
    // A real client on a port where nothing listens: never ready, so every take fails at once.
    const client = connect(`redis://127.0.0.1:${await closedPort()}`);
    const store = await redisRateLimitStore(client, { keyPrefix: uniqueRedisPrefix() });
    const handle = createHandler(fp, { rateLimit: { ...LIMIT, store } });
    const { statuses } = await alternate([{ fp, handle }], key);
    expect(count(statuses, 200)).toBe(LIMIT.burst);
    expect(count(statuses, 429)).toBe(REQUESTS - LIMIT.burst);
    expect(warnings).toEqual(["the shared rate limit store failed; counting in this process until it answers"]);
  });

  it("stops asking a Redis that hangs after 3 timeouts, counts locally, and probes it again 5 s later", async () => {
    const clock = fakeClock(Date.now());
    const fp = createFlagpost({ storage: memoryStorage(), clock, logger: silentLogger });
    const { key } = await fp.keys.create({ scopes: ["flags:read"] });
    // As flagpost serve makes it: no offline queue, a 1 s command timeout.
    const client = new Redis(redisUrl()!, { enableOfflineQueue: false, lazyConnect: true, commandTimeout: 1_000 });
    client.on("error", () => undefined);
    clients.push(client);
    await client.connect();
    const admin = connect(redisUrl()!);
    await admin.connect();
    const redis = await redisRateLimitStore(client, { keyPrefix: uniqueRedisPrefix() });
    let asked = 0;
    const store: RateLimitStore = {
      take: (id, limit) => {
        asked += 1;
        return redis.take(id, limit);
      },
    };
    const handle = createHandler(fp, { rateLimit: { burst: 1_000, perSecond: 100, store } });
    const request = async () => {
      const started = performance.now();
      const response = await handle({
        method: "GET",
        path: "/v1/flags",
        query: new URLSearchParams(),
        headers: { authorization: `Bearer ${key}` },
        body: { kind: "none" },
        remoteAddress: "127.0.0.1",
      });
      return { status: response!.status, ms: performance.now() - started };
    };
    expect((await request()).status).toBe(200);
    expect(asked).toBe(1);

    // Redis stops answering the limiter's script (a write) but stays connected: every call waits for its timeout.
    await admin.call("CLIENT", "PAUSE", "30000", "WRITE");
    try {
      const during = [];
      for (let i = 0; i < 10; i += 1) during.push(await request());
      expect(during.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(asked).toBe(4); // three timeouts, then the circuit is open
      for (const r of during.slice(3)) expect(r.ms).toBeLessThan(200);
    } finally {
      await admin.call("CLIENT", "UNPAUSE");
    }

    clock.advance(5_100);
    const probe = await request();
    expect(probe.status).toBe(200);
    expect(asked).toBe(5); // one probe, answered: the circuit closes
    await request();
    expect(asked).toBe(6);
  });
});
