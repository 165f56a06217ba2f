import { once } from "node:events";
import { connect } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverTimeoutsFrom } from "../../cli/serve.js";
import { spawnCli, waitForOutput } from "../support/cli.js";

/** Sends `text` and keeps the connection open; resolves with what the server sent and when it closed. */
async function slowClient(url: string, text: string): Promise<{ reply: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, "connect");
  const started = performance.now();
  socket.write(text);
  let reply = "";
  socket.on("data", (d: Buffer) => (reply += d.toString()));
  await once(socket, "close");
  return { reply, closedAfterMs: performance.now() - started };
}

/** Issue 11, defect 11: `serve` sets requestTimeout and headersTimeout instead of Node's 300 s / 60 s. */
describe("flagpost serve timeouts", () => {
  let dir: string;
  let child: ReturnType<typeof spawnCli>;
  let url: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-timeouts-"));
    child = spawnCli(["serve"], {
      FLAGPOST_DB: join(dir, "db.sqlite"),
      PORT: "0",
      FLAGPOST_API_KEY: "timeout-test-key-0123456789",
      FLAGPOST_REQUEST_TIMEOUT_MS: "2000",
      FLAGPOST_HEADERS_TIMEOUT_MS: "1000",
    });
    const output = await waitForOutput(child, /"msg":"listening"/);
    url = JSON.parse(output.split("\n").find((l) => l.includes('"msg":"listening"'))!).url as string;
  }, 60_000);
  afterAll(async () => {
    child.kill("SIGTERM");
    await once(child, "exit");
    await rm(dir, { recursive: true, force: true });
  });

  it("closes a connection whose body stops coming with 408 after the request timeout", async () => {
    const head =
      "POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer timeout-test-key-0123456789\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{";
    const { reply, closedAfterMs } = await slowClient(url, head);
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(1_900);
    expect(closedAfterMs).toBeLessThan(10_000); // Node's default would hold it 300 s
  }, 30_000);

  it("closes a connection whose headers stop coming after the headers timeout", async () => {
    const { reply, closedAfterMs } = await slowClient(url, "GET /v1/flags HTTP/1.1\r\nHost: x\r\n");
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(10_000); // Node's default would hold it 60 s
  }, 30_000);

  it("defaults to 60 s and 10 s, and refuses values that are not milliseconds", () => {
    expect(serverTimeoutsFrom({})).toMatchObject({ requestTimeout: 60_000, headersTimeout: 10_000 });
    expect(
      serverTimeoutsFrom({ FLAGPOST_REQUEST_TIMEOUT_MS: "5000", FLAGPOST_HEADERS_TIMEOUT_MS: "9000" }),
    ).toMatchObject({ requestTimeout: 5_000, headersTimeout: 5_000 });
    for (const bad of ["0", "-1", "1.5", "soon"])
      expect(() => serverTimeoutsFrom({ FLAGPOST_REQUEST_TIMEOUT_MS: bad })).toThrow(/FLAGPOST_REQUEST_TIMEOUT_MS/);
  });
});
