import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../../cli/args.js";
import { openRateLimit } from "../../cli/rate-limit.js";
import { FlagpostError } from "../../src/errors.js";
import { silentLogger } from "../../src/ports/logger.js";
import { spawnCli, waitForOutput } from "../support/cli.js";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { closedPort } from "../support/smtp-sink.js";
import { describeIfRedis, redisUrl } from "../support/redis.js";

/**
 * FLAGPOST_RATE_LIMIT_STORE selects where `flagpost serve` counts the per-key limit; with a
 * shared store, two serve processes allow the configured number of requests together. The
 * window is 100 s (burst 10 at 0.1/s), so the counts do not depend on timing.
 */

const API_KEY = "serve-rate-limit-key-0123456789";
const LIMIT_ENV = { FLAGPOST_RATE_LIMIT_BURST: "10", FLAGPOST_RATE_LIMIT_PER_SECOND: "0.1" };

describe("openRateLimit", () => {
  it("counts in the process by default, with the handler's defaults", async () => {
    const setup = await openRateLimit({}, silentLogger);
    expect(setup.options).toBeUndefined();
    expect(setup.description).toBe("per process (memory)");
    const limited = await openRateLimit({ FLAGPOST_RATE_LIMIT_STORE: "memory", ...LIMIT_ENV }, silentLogger);
    expect(limited.options).toEqual({ burst: 10, perSecond: 0.1 });
  });

  it("FLAGPOST_RATE_LIMIT=off turns the limit off; on is the default", async () => {
    expect((await openRateLimit({ FLAGPOST_RATE_LIMIT: "off", ...LIMIT_ENV }, silentLogger)).options).toBe(false);
    expect((await openRateLimit({ FLAGPOST_RATE_LIMIT: "on", ...LIMIT_ENV }, silentLogger)).options).toEqual({
      burst: 10,
      perSecond: 0.1,
    });
  });

  it.each([
    [{ FLAGPOST_RATE_LIMIT_STORE: "mongo" }, /must be memory, postgres, redis, not "mongo"/],
    [{ FLAGPOST_RATE_LIMIT_STORE: "postgres", FLAGPOST_DB: "./x.db" }, /needs FLAGPOST_DB to be a postgres/],
    [{ FLAGPOST_RATE_LIMIT_STORE: "redis" }, /needs FLAGPOST_REDIS_URL/],
    [{ FLAGPOST_RATE_LIMIT_BURST: "1.5" }, /FLAGPOST_RATE_LIMIT_BURST must be a whole number above 0/],
    [{ FLAGPOST_RATE_LIMIT_PER_SECOND: "0" }, /FLAGPOST_RATE_LIMIT_PER_SECOND must be a number above 0/],
    [{ FLAGPOST_RATE_LIMIT: "none" }, /FLAGPOST_RATE_LIMIT must be on or off, not "none"/],
  ])("refuses %j", async (env, message) => {
    const error = await openRateLimit(env, silentLogger).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it("refuses to start when Redis cannot be reached, naming it without its password", async () => {
    const url = `redis://:secret@127.0.0.1:${await closedPort()}`;
    const error = await openRateLimit(
      { FLAGPOST_RATE_LIMIT_STORE: "redis", FLAGPOST_REDIS_URL: url },
      silentLogger,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlagpostError);
    expect((error as Error).message).toMatch(/^Cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1/);
  });
});

/** Starts serve; resolves with its URL once it listens. */
async function start(children: ChildProcess[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawnCli(["serve"], { PORT: "0", FLAGPOST_API_KEY: API_KEY, ...LIMIT_ENV, ...env });
  children.push(child);
  const output = await waitForOutput(child, /"msg":"listening"/);
  return (JSON.parse(output.split("\n").find((line) => line.includes('"msg":"listening"'))!) as { url: string }).url;
}

/** 30 requests alternating between the servers: how many were let through. */
async function allowedAcross(urls: string[]): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < 30; i += 1) {
    const response = await fetch(`${urls[i % urls.length]}/v1/flags`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    await response.arrayBuffer();
    expect([200, 429]).toContain(response.status);
    if (response.status === 200) allowed += 1;
  }
  return allowed;
}

describe("flagpost serve with a shared rate limit", () => {
  const children: ChildProcess[] = [];
  let database: TestDatabase | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await Promise.all(
      children.splice(0).map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        await once(child, "exit");
      }),
    );
    await database?.drop();
    database = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("FLAGPOST_RATE_LIMIT=off: every request is let through, with no ratelimit headers", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-rate-limit-"));
    const url = await start(children, { FLAGPOST_DB: join(dir, "flagpost.db"), FLAGPOST_RATE_LIMIT: "off" });
    expect(await allowedAcross([url])).toBe(30);
    const response = await fetch(`${url}/v1/flags`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(response.headers.get("ratelimit-limit")).toBeNull();
  });

  describeIfBackend("postgres", "on PostgreSQL", () => {
    it("FLAGPOST_RATE_LIMIT_STORE=postgres: two processes allow 10 requests together", async () => {
      database = await createTestDatabase("postgres");
      const env = { FLAGPOST_DB: database.url, FLAGPOST_RATE_LIMIT_STORE: "postgres" };
      const [first, second] = await Promise.all([start(children, env), start(children, env)]);
      expect(await allowedAcross([first, second])).toBe(10);
    });
  });

  describeIfRedis("on Redis", () => {
    it("FLAGPOST_RATE_LIMIT_STORE=redis: two processes on one SQLite file allow 10 requests together", async () => {
      dir = await mkdtemp(join(tmpdir(), "flagpost-rate-limit-"));
      // The key is this run's own (FLAGPOST_API_KEY hashes to a new id per database), so the
      // counters other runs left in the shared Redis are not this key's.
      const env = {
        FLAGPOST_DB: join(dir, "flagpost.db"),
        FLAGPOST_RATE_LIMIT_STORE: "redis",
        FLAGPOST_REDIS_URL: redisUrl()!,
      };
      const [first, second] = await Promise.all([start(children, env), start(children, env)]);
      expect(await allowedAcross([first, second])).toBe(10);
    });
  });
});
