import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ofrepStreamsFrom } from "../../cli/ofrep-stream-settings.js";
import { runCli, spawnCli, waitForOutput } from "../support/cli.js";

/**
 * FLAGPOST_OFREP_STREAMS and FLAGPOST_OFREP_STREAM_TOKEN_TTL: `flagpost serve`'s switch for the
 * OFREP event streams (docs/ofrep.md, "Event streams") and the lifetime of their links.
 */

const API_KEY = "serve-ofrep-streams-key-0123456789";

describe("ofrepStreamsFrom", () => {
  it("is on by default, off with off, and reads the token lifetime in seconds", () => {
    expect(ofrepStreamsFrom({})).toEqual({});
    expect(ofrepStreamsFrom({ FLAGPOST_OFREP_STREAMS: " ON " })).toEqual({});
    expect(ofrepStreamsFrom({ FLAGPOST_OFREP_STREAMS: "off" })).toBe(false);
    expect(ofrepStreamsFrom({ FLAGPOST_OFREP_STREAM_TOKEN_TTL: "600" })).toEqual({ tokenTtlSeconds: 600 });
    expect(ofrepStreamsFrom({ FLAGPOST_OFREP_STREAM_TOKEN_TTL: "60" })).toEqual({ tokenTtlSeconds: 60 });
    expect(ofrepStreamsFrom({ FLAGPOST_OFREP_STREAM_TOKEN_TTL: "86400" })).toEqual({ tokenTtlSeconds: 86_400 });
  });

  it.each([
    [{ FLAGPOST_OFREP_STREAMS: "no" }, 'FLAGPOST_OFREP_STREAMS must be on or off, not "no"'],
    [{ FLAGPOST_OFREP_STREAM_TOKEN_TTL: "59" }, /must be a whole number of seconds from 60 to 86400, not "59"$/],
    [{ FLAGPOST_OFREP_STREAM_TOKEN_TTL: "86401" }, /from 60 to 86400, not "86401"$/],
    [{ FLAGPOST_OFREP_STREAM_TOKEN_TTL: "90.5" }, /from 60 to 86400, not "90.5"$/],
    [{ FLAGPOST_OFREP_STREAM_TOKEN_TTL: "1h" }, /^FLAGPOST_OFREP_STREAM_TOKEN_TTL must be a whole number/],
  ])("refuses %j", (env, message) => {
    expect(() => ofrepStreamsFrom(env)).toThrow(message);
  });
});

interface BulkAnswer {
  flags: unknown[];
  eventStreams?: { type: string; endpoint: { requestUri: string } }[];
}

async function bulk(url: string): Promise<BulkAnswer> {
  const response = await fetch(`${url}/ofrep/v1/evaluate/flags`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ context: { targetingKey: "user-1" } }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as BulkAnswer;
}

/** Opens a stream link; its status and, for a refusal, the error code. */
async function openStream(url: string, requestUri: string): Promise<{ status: number; code?: string }> {
  const abort = new AbortController();
  const response = await fetch(url + requestUri, { signal: abort.signal });
  if (response.status === 200) {
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    abort.abort();
    return { status: 200 };
  }
  const body = (await response.json()) as { error: { code: string } };
  return { status: response.status, code: body.error.code };
}

describe("flagpost serve's OFREP event streams", () => {
  const children: ChildProcess[] = [];
  let dir: string | undefined;
  afterEach(async () => {
    await Promise.all(children.splice(0).map(stop));
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function start(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
    const child = spawnCli(["serve"], { PORT: "0", FLAGPOST_API_KEY: API_KEY, FLAGPOST_RATE_LIMIT: "off", ...env });
    children.push(child);
    const output = await waitForOutput(child, /"msg":"listening"/);
    const line = output.split("\n").find((l) => l.includes('"msg":"listening"'))!;
    return { child, url: (JSON.parse(line) as { url: string }).url };
  }

  async function stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  }

  it("links a stream by default, with the configured token lifetime; FLAGPOST_OFREP_STREAMS=off links none and refuses the stream", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-ofrep-streams-"));
    const db = join(dir, "flagpost.db");

    const on = await start({ FLAGPOST_DB: db, FLAGPOST_OFREP_STREAM_TOKEN_TTL: "120" });
    const answer = await bulk(on.url);
    expect(answer.eventStreams).toHaveLength(1);
    const [link] = answer.eventStreams!;
    expect(link!.type).toBe("sse");
    // The token is <key id>.<expiry in Unix seconds>.<mac>: at most 120 s ahead, at least half of it.
    const token = new URL(link!.endpoint.requestUri, on.url).searchParams.get("token")!;
    const expiresIn = Number(token.split(".")[1]) - Date.now() / 1000;
    expect(expiresIn).toBeGreaterThan(55);
    expect(expiresIn).toBeLessThanOrEqual(120);
    expect(await openStream(on.url, link!.endpoint.requestUri)).toEqual({ status: 200 });
    await stop(on.child);

    // Same database, so the same server secret: the link is valid, but no stream is served.
    const off = await start({ FLAGPOST_DB: db, FLAGPOST_OFREP_STREAMS: "off" });
    const without = await bulk(off.url);
    expect(without).not.toHaveProperty("eventStreams");
    expect(without.flags).toEqual([]);
    // As the HTTP handler with ofrepStreams: false answers: the path is an ordinary route that needs a key.
    expect(await openStream(off.url, link!.endpoint.requestUri)).toEqual({ status: 401, code: "missing_api_key" });
  }, 90_000);

  it("exits with a one-line usage error on a bad value, before opening anything", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-ofrep-streams-"));
    const db = join(dir, "flagpost.db");
    const ran = await runCli(["serve"], { PORT: "0", FLAGPOST_DB: db, FLAGPOST_OFREP_STREAMS: "sometimes" });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      'flagpost: FLAGPOST_OFREP_STREAMS must be on or off, not "sometimes"; see flagpost serve --help\n',
    );
    expect(ran.stdout).toBe("");
    expect(existsSync(db)).toBe(false);
  }, 60_000);
});
