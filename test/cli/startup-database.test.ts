import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { spawnCli, waitForOutput } from "../support/cli.js";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { type ScramPostgres, scramPostgresAvailable, startScramPostgres } from "../support/scram-postgres.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

// Each test starts the CLI from source (tsx): seconds on a busy machine.
vi.setConfig({ testTimeout: 120_000 });

/**
 * Issue 25 §2 and issue 24 §1: a start that waiting cannot fix prints the driver's own message and
 * exits; a start while the database is unreachable waits for it, logging each retry.
 */

interface Finished {
  code: number | null;
  stderr: string;
  /** From the first byte on stderr to the exit. */
  exitAfterMessageMs: number;
}

async function runToExit(args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  const child = spawnCli(args, { PORT: "0", ...env });
  let stderr = "";
  let firstMessageAt: number | undefined;
  child.stdout!.resume();
  child.stderr!.on("data", (d: Buffer) => {
    firstMessageAt ??= Date.now();
    stderr += d.toString();
  });
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stderr, exitAfterMessageMs: Date.now() - (firstMessageAt ?? Date.now()) };
}

describe.skipIf(!scramPostgresAvailable())(
  "a PostgreSQL that asks for a password (scram-sha-256; needs root and /usr/lib/postgresql/*/bin)",
  () => {
    let server: ScramPostgres;
    beforeAll(async () => {
      server = await startScramPostgres();
    }, 120_000);
    afterAll(async () => server?.stop());

    it("serve without a password in the URL prints pg's own words and exits 1 within 2 s", async () => {
      const url = new URL(server.url);
      url.password = "";
      const run = await runToExit(["serve"], { FLAGPOST_DB: url.toString() });
      expect(run.code).toBe(1);
      const lines = run.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("client password must be a string");
      expect(lines[0]).toContain("the server asks for a password and FLAGPOST_DB gives none");
      expect(run.exitAfterMessageMs).toBeLessThan(2_000);
    });

    it("a wrong password: the server's message, the password masked, exit 1 within 2 s", async () => {
      const url = new URL(server.url);
      url.password = "s3cret-wrong";
      const run = await runToExit(["serve"], { FLAGPOST_DB: url.toString() });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/password authentication failed for user "postgres" \(28P01\)/);
      expect(run.stderr).not.toContain("s3cret-wrong");
      expect(run.exitAfterMessageMs).toBeLessThan(2_000);
    });
  },
);

describeIfBackend("postgres", "serve started while PostgreSQL is unreachable", () => {
  let database: TestDatabase | undefined;
  let proxy: TcpProxy | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
    await proxy?.close();
    await database?.drop();
    child = proxy = database = undefined;
  });

  it("waits, logging each retry with the driver's message, and serves once the database is back", async () => {
    database = await createTestDatabase("postgres");
    const pg = new URL(database.url);
    proxy = await startTcpProxy(pg.hostname, Number(pg.port || 5432));
    await proxy.cut();
    child = spawnCli(["serve"], { FLAGPOST_DB: proxy.via(database.url), PORT: "0" });
    const waiting = await waitForOutput(
      child,
      /"msg":"waiting for the database"[\s\S]*"msg":"waiting for the database"/,
    );
    const retries = waiting.split("\n").filter((line) => line.includes('"msg":"waiting for the database"'));
    expect(retries.length).toBeGreaterThanOrEqual(2);
    for (const line of retries) expect(line).toMatch(/ECONNREFUSED/);
    expect(child.exitCode).toBeNull();

    await proxy.restore();
    const output = await waitForOutput(child, /"msg":"listening"/);
    expect(output).toContain('"msg":"database reached"');
    const url = (JSON.parse(output.split("\n").find((line) => line.includes('"msg":"listening"'))!) as { url: string })
      .url;
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(200);
  });
});
