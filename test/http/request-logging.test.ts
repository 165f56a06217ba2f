import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../src/ports/logger.js";
import { memoryStorage } from "../../src/memory/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { requestLoggingFrom } from "../../cli/request-logging.js";
import { UsageError } from "../../cli/args.js";
import { startApp, type TestApp } from "../support/servers.js";

/** Memory storage whose read of the flag "broken" fails, so that GET /v1/flags/broken is a 500. */
function storageWithABrokenFlag(): Storage {
  const storage = memoryStorage();
  const get = storage.flags.get.bind(storage.flags);
  storage.flags.get = async (key) => {
    if (key === "broken") throw new Error("the disk is on fire");
    return get(key);
  };
  return storage;
}

function capture(): { logger: Logger; requests: Record<string, unknown>[] } {
  const requests: Record<string, unknown>[] = [];
  const logger: Logger = {
    info: (msg, fields = {}) => void (msg === "request" && requests.push(fields)),
    warn: () => undefined,
    error: () => undefined,
  };
  return { logger, requests };
}

describe('request logging "sampled"', () => {
  let app: TestApp;
  const { logger, requests } = capture();
  beforeAll(async () => {
    app = await startApp({
      storage: storageWithABrokenFlag(),
      http: { logRequests: "sampled", requestLogSample: 5, logger },
    });
  });
  afterAll(async () => app.close());

  it("logs every 5xx and one in N of the other requests, each sampled line saying how many it stands for", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await app.call("GET", "/v1/flags")).status);
    for (let i = 0; i < 3; i++) statuses.push((await app.call("GET", "/v1/flags/broken")).status);
    statuses.push((await fetch(`${app.url}/v1/flags`)).status, (await fetch(`${app.url}/v1/flags`)).status);
    expect(statuses.filter((s) => s === 500)).toHaveLength(3);
    const failures = requests.filter((r) => r.status === 500);
    expect(failures).toHaveLength(3);
    for (const line of failures) expect(line).not.toHaveProperty("sample");
    const sampled = requests.filter((r) => r.status !== 500);
    // 14 requests that are not 5xx (12 × 200, 2 × 401): the 5th and the 10th are written.
    expect(sampled).toHaveLength(2);
    for (const line of sampled)
      expect(line).toMatchObject({ method: "GET", path: "/v1/flags", status: 200, sample: 5 });
  });
});

describe("flagpost serve's request logging settings", () => {
  it("default to sampled, one in 100, and accept off and all", () => {
    expect(requestLoggingFrom({})).toEqual({ logRequests: "sampled", requestLogSample: 100 });
    expect(requestLoggingFrom({ FLAGPOST_LOG_REQUESTS: "ALL" }).logRequests).toBe("all");
    expect(requestLoggingFrom({ FLAGPOST_LOG_REQUESTS: "off", FLAGPOST_LOG_SAMPLE: "10" })).toEqual({
      logRequests: "off",
      requestLogSample: 10,
    });
  });

  it("refuse anything else, naming the variable", () => {
    expect(() => requestLoggingFrom({ FLAGPOST_LOG_REQUESTS: "yes" })).toThrow(UsageError);
    expect(() => requestLoggingFrom({ FLAGPOST_LOG_REQUESTS: "yes" })).toThrow(/FLAGPOST_LOG_REQUESTS/);
    expect(() => requestLoggingFrom({ FLAGPOST_LOG_SAMPLE: "0" })).toThrow(/FLAGPOST_LOG_SAMPLE/);
    expect(() => requestLoggingFrom({ FLAGPOST_LOG_SAMPLE: "1.5" })).toThrow(UsageError);
  });
});
