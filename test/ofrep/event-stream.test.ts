import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { createFlagpost } from "../../src/flagpost.js";
import { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import { fakeClock, type FakeClock } from "../support/fake-clock.js";
import { startApp, type TestApp } from "../support/servers.js";
import { SseReader } from "./support/sse-reader.js";

// OFREP event streams (ADR 0008, docs/ofrep.md "Event streams"): the link in the bulk answer, its
// token, and the stream behind it, from the server's side (the browser side is web-provider.test.ts).

const BULK = "/ofrep/v1/evaluate/flags";
const ORIGIN = "http://127.0.0.1:5999";
const HOUR = 3_600_000;

interface Link {
  type: string;
  endpoint: { requestUri: string };
}

let app: TestApp;
let clock: FakeClock;
let clientKey: { id: string; key: string };
const open: SseReader[] = [];

beforeEach(async () => {
  // Half past the start of a token window (30 min), so a test's own duration never crosses one.
  clock = fakeClock(Date.parse("2026-06-01T10:15:00.000Z"));
  app = await startApp({
    clock,
    http: { rateLimit: false, corsOrigins: [ORIGIN], ofrepStreams: { maxConnectionsPerKey: 3, keyCheckMs: 100 } },
  });
  await app.fp.flags.create({ key: "beta", enabled: true });
  clientKey = await app.fp.keys.create({ name: "web", scopes: ["flags:client"] });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((reader) => reader.cancel()));
  await app.close();
});

async function bulk(key = clientKey.key, etag?: string) {
  const res = await fetch(app.url + BULK, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      ...(etag ? { "if-none-match": etag } : {}),
    },
    body: JSON.stringify({ context: { targetingKey: "u1" } }),
  });
  const body = res.status === 200 ? ((await res.json()) as { eventStreams?: Link[] }) : undefined;
  return { status: res.status, etag: res.headers.get("etag") ?? undefined, body };
}

async function linkOf(key = clientKey.key): Promise<string> {
  const { body } = await bulk(key);
  expect(body?.eventStreams).toHaveLength(1);
  return body!.eventStreams![0]!.endpoint.requestUri;
}

async function connect(requestUri: string, headers: Record<string, string> = {}) {
  const res = await fetch(app.url + requestUri, { headers: { accept: "text/event-stream", ...headers } });
  if (res.status !== 200) return { res, reader: undefined };
  const reader = new SseReader(res);
  open.push(reader);
  await reader.until((r) => r.text.includes(": connected"));
  return { res, reader };
}

describe("the bulk answer's event stream link", () => {
  it("is an SSE endpoint under the mount point whose token is not the API key", async () => {
    const uri = await linkOf();
    expect(uri).toMatch(/^\/ofrep\/v1\/stream\?token=[0-9a-f-]{36}\.\d+\.[A-Za-z0-9_-]{22}&since=[A-Za-z0-9_-]{16}$/);
    expect(uri).toContain(clientKey.id);
    expect(uri).not.toContain(clientKey.key);
  });

  it("stays the same, with 304s, within a window, and comes fresh when the next window starts", async () => {
    const first = await bulk();
    expect((await bulk(clientKey.key, first.etag)).status).toBe(304);
    clock.advance(HOUR / 2);
    const later = await bulk(clientKey.key, first.etag);
    expect(later.status).toBe(200);
    expect(later.body!.eventStreams![0]!.endpoint.requestUri).not.toBe(
      first.body!.eventStreams![0]!.endpoint.requestUri,
    );
  });

  it("differs per key, and so does the ETag", async () => {
    const other = await app.fp.keys.create({ name: "web2", scopes: ["flags:client"] });
    const [a, b] = [await bulk(), await bulk(other.key)];
    expect(a.etag).not.toBe(b.etag);
    expect(a.body!.eventStreams).not.toEqual(b.body!.eventStreams);
  });

  it("is not given to a key without OFREP access", async () => {
    const mailer = await app.fp.keys.create({ name: "mail", scopes: ["emails:send"] });
    const refused = await bulk(mailer.key);
    expect(refused.status).toBe(403);
    expect(refused.body).toBeUndefined();
  });

  it("is left out while the server's secret cannot be read, and the stream answers 503", async () => {
    await app.close();
    const storage = memoryStorage();
    // Storage holds the generated secret (no FLAGPOST_SECRET_KEY) and cannot give it.
    storage.settings.getOrCreateSetting = () => Promise.reject(new FlagpostError("unavailable", "settings are down"));
    app = await startApp({ clock, storage, http: { rateLimit: false } });
    await app.fp.flags.create({ key: "beta", enabled: true });
    const answer = await bulk(app.key);
    expect(answer.status).toBe(200);
    expect(answer.body).not.toHaveProperty("eventStreams");
    expect((await bulk(app.key, answer.etag)).status).toBe(304);
    // A token of the right shape needs the secret to be checked (a malformed one does not).
    const token = `${clientKey.id}.${Math.floor(clock.now() / 1000) + 60}.${"A".repeat(22)}`;
    const res = await fetch(`${app.url}/ofrep/v1/stream?token=${token}`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
  });

  it("is left out with ofrepStreams: false", async () => {
    await app.close();
    app = await startApp({ clock, http: { rateLimit: false, ofrepStreams: false } });
    const { body } = await bulk(app.key);
    expect(body).not.toHaveProperty("eventStreams");
    const res = await fetch(`${app.url}/ofrep/v1/stream?token=x`);
    expect(res.status).toBe(401);
  });

  it("refuses a token lifetime with no window or longer than a day when the handler is made", async () => {
    const fp = createFlagpost({ storage: memoryStorage(), clock });
    try {
      for (const tokenTtlSeconds of [0, 1, 1.5, 86_401, Number.NaN])
        expect(() => toNodeHandler(fp, { ofrepStreams: { tokenTtlSeconds } })).toThrow(
          /tokenTtlSeconds must be a whole number from 2 to 86400/,
        );
      expect(() => toNodeHandler(fp, { ofrepStreams: { tokenTtlSeconds: 2 } })).not.toThrow();
    } finally {
      await fp.close();
    }
  });
});

describe("the event stream", () => {
  it("sends refetchEvaluation once per change, with keep-alive room, and the allowed origin's CORS headers", async () => {
    const { res, reader } = await connect(await linkOf(), { origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    // Nothing changed since the link was made: no refetch on connecting.
    expect(reader!.refetches).toBe(0);
    await app.fp.flags.update("beta", { enabled: false });
    await reader!.until((r) => r.refetches === 1);
    await app.fp.flags.create({ key: "gamma", enabled: true });
    await reader!.until((r) => r.refetches === 2);
    expect(reader!.text).not.toContain("id:");
  });

  it("tells a client whose link is older than the flags to refetch as soon as it connects", async () => {
    const uri = await linkOf();
    await app.fp.flags.update("beta", { enabled: false });
    const { reader } = await connect(uri);
    await reader!.until((r) => r.refetches === 1);
  });

  it("answers 401 to a forged, malformed or expired token, before reading storage", async () => {
    const uri = await linkOf();
    const token = new URL(uri, app.url).searchParams.get("token")!;
    const [id, expiry, mac] = token.split(".");
    const forged = [
      `${id}.${Number(expiry) + 3600}.${mac}`, // stretched
      `${id}.${expiry}.${"A".repeat(22)}`,
      "not-a-token",
      "",
    ];
    for (const bad of forged) {
      const { res } = await connect(`/ofrep/v1/stream?token=${encodeURIComponent(bad)}`, { origin: ORIGIN });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
        "This stream link's token is not valid",
      );
      // The page can read the refusal, as on the other /ofrep/ routes.
      expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    }
    clock.advance(HOUR);
    const { res } = await connect(uri);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("expired");
  });

  it("refuses a token for a key without flags:client", async () => {
    const mailer = await app.fp.keys.create({ name: "mail", scopes: ["emails:send"] });
    const token = await app.fp.streamTokens.issue(mailer.id, Math.floor(clock.now() / 1000) + 60);
    const { res } = await connect(`/ofrep/v1/stream?token=${token}`);
    expect(res.status).toBe(403);
  });

  it("refuses a revoked key's link, and ends the streams it holds open", async () => {
    const uri = await linkOf();
    const { reader } = await connect(uri);
    const started = performance.now();
    await app.fp.keys.revoke(clientKey.id);
    await reader!.closed();
    const took = performance.now() - started;
    // keyCheckMs is 100 in this test (default 5 s).
    expect(took).toBeLessThan(2_000);
    expect((await connect(uri)).res.status).toBe(401);
  });

  it("holds at most maxConnectionsPerKey streams per key, 429 with Retry-After beyond", async () => {
    const uri = await linkOf();
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await connect(uri));
    expect(held.map((h) => h.res.status)).toEqual([200, 200, 200]);
    const beyond = await connect(uri);
    expect(beyond.res.status).toBe(429);
    expect(beyond.res.headers.get("retry-after")).toBe("60");
    // A place given back is taken again.
    await held[0]!.reader!.cancel();
    await expect.poll(async () => (await connect(uri)).res.status).toBe(200);
  });

  it("ends every stream when flagpost closes", async () => {
    const { reader } = await connect(await linkOf());
    await app.fp.close();
    await reader!.closed();
    expect(reader!.ended).toBe(true);
  });

  it("answers only GET", async () => {
    const res = await fetch(app.url + (await linkOf()), { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });
});
