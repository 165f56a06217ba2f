import { request as httpRequest } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { negotiateCoding } from "../../adapters/http/compression.js";
import { createFlagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { fakeClock } from "../support/fake-clock.js";
import { startApp, type TestApp } from "../support/servers.js";

/** Memory storage counting every read that a snapshot or a key check could make. */
function countedStorage(): { storage: Storage; flagReads: () => number; keyReads: () => number } {
  const storage = memoryStorage();
  let flagReads = 0;
  let keyReads = 0;
  const flags = storage.flags;
  for (const name of ["revision", "list", "get"] as const) {
    const original = (flags[name] as (...args: unknown[]) => Promise<unknown>).bind(flags);
    (flags as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      flagReads += 1;
      return original(...args);
    };
  }
  const findByHash = storage.apiKeys.findByHash.bind(storage.apiKeys);
  // As slow as a database's answer: requests that arrive while it is under way must wait for it
  // rather than read again (memory alone answers before the next request is looked at).
  storage.apiKeys.findByHash = async (hash) => {
    keyReads += 1;
    await delay(50);
    return findByHash(hash);
  };
  return { storage, flagReads: () => flagReads, keyReads: () => keyReads };
}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET through node:http, which (unlike fetch) hands back the bytes as sent. */
function rawGet(url: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const HOUR = 3_600_000;

describe("GET /v1/flags/_snapshot from memory", () => {
  let app: TestApp;
  let counted: ReturnType<typeof countedStorage>;
  beforeAll(async () => {
    counted = countedStorage();
    // No revision poll during the test: every storage read counted is one a request made. The
    // clock stands still, so the key verified by the first request stays cached (1 s) however
    // slowly a loaded machine serves the 40 requests after it.
    app = await startApp({
      storage: counted.storage,
      clock: fakeClock(Date.now()),
      flagSync: { pollIntervalMs: HOUR },
    });
    for (let i = 0; i < 30; i++)
      await app.fp.flags.create({ key: `flag-${i}`, enabled: i % 2 === 0, description: `flag number ${i}` });
  });
  afterAll(async () => app.close());

  it("answers 200 and 304 without reading storage, and a write of this process at once", async () => {
    const first = await app.call("GET", "/v1/flags/_snapshot");
    const etag = first.headers.get("etag")!;
    const flagReads = counted.flagReads();
    const keyReads = counted.keyReads();
    for (let i = 0; i < 20; i++) {
      expect((await app.call("GET", "/v1/flags/_snapshot")).status).toBe(200);
      expect((await app.call("GET", "/v1/flags/_snapshot", undefined, { "if-none-match": etag })).status).toBe(304);
    }
    expect(counted.flagReads()).toBe(flagReads);
    expect(counted.keyReads()).toBe(keyReads);

    await app.fp.flags.update("flag-3", { enabled: true });
    const changed = await app.call("GET", "/v1/flags/_snapshot", undefined, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    const body = (await changed.json()) as { data: { flags: { key: string; enabled: boolean }[] } };
    expect(body.data.flags.find((f) => f.key === "flag-3")?.enabled).toBe(true);
  });

  it("verifies a key from storage once for many concurrent requests, and once more after the cache period", async () => {
    const reader = await app.fp.keys.create({ name: "reader", scopes: ["flags:read", "flags:evaluate"] });
    // Another server on the same storage: the key is not cached there. Its clock stands still, so
    // the count does not depend on how fast this machine serves the requests: on the system clock
    // a burst that a loaded machine spreads past the cache period (1 s) reads the key again, as
    // it should (seen once: 2 reads).
    const clock = fakeClock(Date.now());
    const second = await startApp({ storage: counted.storage, clock, flagSync: { pollIntervalMs: HOUR } });
    const burst = (size: number) =>
      Promise.all(
        Array.from({ length: size }, (_, i) =>
          fetch(`${second.url}${i % 2 ? "/v1/flags/_snapshot" : "/v1/flags/flag-1/evaluate"}`, {
            method: i % 2 ? "GET" : "POST",
            headers: { authorization: `Bearer ${reader.key}` },
          }).then((r) => r.status),
        ),
      );
    try {
      const before = counted.keyReads();
      expect((await burst(40)).every((s) => s === 200)).toBe(true);
      expect(counted.keyReads() - before).toBe(1);
      clock.advance(999);
      expect((await burst(10)).every((s) => s === 200)).toBe(true);
      expect(counted.keyReads() - before).toBe(1);
      clock.advance(1);
      expect((await burst(10)).every((s) => s === 200)).toBe(true);
      expect(counted.keyReads() - before).toBe(2);
    } finally {
      await second.close();
    }
  });

  it("compresses with brotli or gzip when asked, to bytes that decode to the same JSON", async () => {
    const auth = { authorization: `Bearer ${app.key}` };
    const plain = await rawGet(`${app.url}/v1/flags/_snapshot`, auth);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toBe("Accept-Encoding");
    expect(plain.body.byteLength).toBeGreaterThan(1024);
    const version = (JSON.parse(plain.body.toString("utf8")) as { data: { version: string } }).data.version;
    expect(plain.headers.etag).toBe(`"${version}"`);

    const br = await rawGet(`${app.url}/v1/flags/_snapshot`, { ...auth, "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("Accept-Encoding");
    expect(br.headers.etag).toBe(`"${version}-br"`);
    expect(br.body.byteLength).toBeLessThan(plain.body.byteLength);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);

    const gz = await rawGet(`${app.url}/v1/flags/_snapshot`, { ...auth, "accept-encoding": "gzip, br;q=0" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers.etag).toBe(`"${version}-gzip"`);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);

    const refused = await rawGet(`${app.url}/v1/flags/_snapshot`, { ...auth, "accept-encoding": "br;q=0, gzip;q=0" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(refused.body.equals(plain.body)).toBe(true);

    // A tag received with one coding validates the same content asked for with another.
    const notModified = await rawGet(`${app.url}/v1/flags/_snapshot`, {
      ...auth,
      "accept-encoding": "gzip",
      "if-none-match": `"${version}-br"`,
    });
    expect(notModified.status).toBe(304);
    expect(notModified.body.byteLength).toBe(0);
    expect(notModified.headers.etag).toBe(`"${version}-gzip"`);
    expect(notModified.headers.vary).toBe("Accept-Encoding");
    expect(notModified.headers["content-encoding"]).toBeUndefined();
  });
});

describe("GET /v1/flags/_snapshot and other processes", () => {
  it("reflects a write made through another instance on the same storage once the flag sync sees it", async () => {
    const storage = memoryStorage();
    const app = await startApp({ storage, flagSync: { pollIntervalMs: 20 } });
    const other = createFlagpost({ storage, logger: silentLogger });
    try {
      await other.ready();
      await app.fp.flags.create({ key: "shared", enabled: false });
      const first = await app.call("GET", "/v1/flags/_snapshot");
      const etag = first.headers.get("etag")!;
      await other.flags.update("shared", { enabled: true });
      await expect
        .poll(async () => (await app.call("GET", "/v1/flags/_snapshot", undefined, { "if-none-match": etag })).status, {
          timeout: 5_000,
          interval: 20,
        })
        .toBe(200);
      const body = (await (await app.call("GET", "/v1/flags/_snapshot")).json()) as {
        data: { flags: { key: string; enabled: boolean }[] };
      };
      expect(body.data.flags).toEqual([expect.objectContaining({ key: "shared", enabled: true })]);
    } finally {
      await other.close();
      await app.close();
    }
  });
});

describe("Accept-Encoding negotiation", () => {
  it("prefers brotli, honours q=0 and *, and falls back to no coding", () => {
    expect(negotiateCoding(undefined)).toBeUndefined();
    expect(negotiateCoding("")).toBeUndefined();
    expect(negotiateCoding("identity")).toBeUndefined();
    expect(negotiateCoding("deflate")).toBeUndefined();
    expect(negotiateCoding("gzip, deflate, br")).toBe("br");
    expect(negotiateCoding("gzip;q=1, br;q=0.5")).toBe("gzip");
    expect(negotiateCoding("BR;Q=0.8, GZIP;Q=0.8")).toBe("br");
    expect(negotiateCoding("br;q=0, *")).toBe("gzip");
    expect(negotiateCoding("*;q=0")).toBeUndefined();
    expect(negotiateCoding("x-gzip")).toBe("gzip");
    expect(negotiateCoding("gzip;q=abc")).toBeUndefined();
  });
});
