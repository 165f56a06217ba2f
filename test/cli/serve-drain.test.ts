import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, vi } from "vitest";
import { spawnCli, waitForOutput } from "../support/cli.js";

vi.setConfig({ testTimeout: 120_000 });

/** Issue 29 §1: after SIGTERM, /ready is 503 while the server still accepts, for FLAGPOST_SHUTDOWN_DELAY_MS. */
it("answers /ready 503 (shutdown) and still serves during the shutdown delay, then exits 0", async () => {
  const dir = await mkdtemp(join(tmpdir(), "flagpost-drain-"));
  const child = spawnCli(["serve"], {
    FLAGPOST_DB: join(dir, "flagpost.db"),
    FLAGPOST_OUTBOX_DIR: join(dir, "outbox"),
    PORT: "0",
    FLAGPOST_SHUTDOWN_DELAY_MS: "3000",
  });
  try {
    const output = await waitForOutput(child, /"msg":"listening"/);
    const url = (JSON.parse(output.split("\n").find((line) => line.includes('"msg":"listening"'))!) as { url: string })
      .url;
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    const exited = once(child, "exit") as Promise<[number | null]>;
    child.kill("SIGTERM");
    await waitForOutput(child, /"msg":"draining/);
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      status: "unavailable",
      checks: { shutdown: "the server is shutting down" },
    });
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const [code] = await exited;
    expect(code).toBe(0);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
});
