import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { createFlagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import { runCli } from "../support/cli.js";
import { describeIfBackend } from "../support/databases.js";

// Each test starts the CLI from source (tsx) once or twice: slow on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

/** Issue 16 §5: a start that cannot work says why, on one line, and never hangs or prints a lost key. */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "flagpost-start-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** A URL like `base` (a test server's) with another user, password, port or database. */
function variant(base: string, change: { user?: string; password?: string; port?: string; database?: string }): string {
  const url = new URL(base);
  if (change.user !== undefined) url.username = change.user;
  if (change.password !== undefined) url.password = change.password;
  if (change.port !== undefined) url.port = change.port;
  if (change.database !== undefined) url.pathname = `/${change.database}`;
  return url.toString();
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<string> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, "close");
  return String(port);
}

async function expectOneLineFailure(env: NodeJS.ProcessEnv, ...parts: (string | RegExp)[]): Promise<string> {
  const run = await runCli(["migrate"], env);
  expect(run.code).toBe(1);
  const lines = run.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  for (const part of parts) expect(lines[0]).toMatch(part);
  expect(run.stderr).not.toContain("s3cret");
  expect(run.stderr).not.toContain("    at ");
  return lines[0]!;
}

describeIfBackend("postgres", "database errors from the CLI (PostgreSQL)", () => {
  const base = process.env.FLAGPOST_TEST_PG_URL!;
  it("carries the server's message: unknown database, unknown user; masks the password", async () => {
    await expectOneLineFailure(
      { FLAGPOST_DB: variant(base, { database: "flagpost_no_such_db" }) },
      'database "flagpost_no_such_db" does not exist',
      "(3D000)",
    );
    await expectOneLineFailure(
      { FLAGPOST_DB: variant(base, { user: "flagpost_nobody", password: "s3cret" }) },
      /flagpost_nobody/,
      /\(28\w{3}\)/,
    );
  });
  it('says "could not connect" when nothing answers', async () => {
    await expectOneLineFailure(
      { FLAGPOST_DB: variant(base, { port: await closedPort(), password: "s3cret" }) },
      "could not connect",
      "ECONNREFUSED",
    );
  });
});

describeIfBackend("mysql", "database errors from the CLI (MySQL/MariaDB)", () => {
  const base = process.env.FLAGPOST_TEST_MYSQL_URL!;
  it("carries the server's message for a refused password, masked", async () => {
    await expectOneLineFailure(
      { FLAGPOST_DB: variant(base, { user: "flagpost_nobody", password: "s3cret" }) },
      "Access denied for user 'flagpost_nobody'",
      "(ER_ACCESS_DENIED_ERROR)",
    );
  });
  it('says "could not connect" when nothing answers', async () => {
    await expectOneLineFailure(
      { FLAGPOST_DB: variant(base, { port: await closedPort() }) },
      "could not connect",
      "ECONNREFUSED",
    );
  });
});

describe("a read-only SQLite database", () => {
  it("is named by its path when ready() fails", async () => {
    const path = join(dir, "readonly.db");
    new SQLite(path).close(); // an empty file
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(path, { readonly: true }) }) });
    const fp = createFlagpost({ storage: kyselyStorage(db, { destroyOnClose: true }), logger: silentLogger });
    await expect(fp.ready()).rejects.toThrow(
      new RegExp(`readonly database.*\\(SQLITE_READONLY\\); file: ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
    await fp.close().catch(() => undefined);
  });
});

describe("flagpost serve", () => {
  let taken: Server | undefined;
  afterEach(async () => {
    taken?.close();
    taken = undefined;
  });

  it("binds the port before it creates a key: a taken port prints no key and stores none", async () => {
    taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    const port = String((taken.address() as { port: number }).port);
    const db = join(dir, "flagpost.db");
    const served = await runCli(["serve"], { FLAGPOST_DB: db, PORT: port, FLAGPOST_OUTBOX_DIR: join(dir, "outbox") });
    expect(served.code).toBe(1);
    expect(served.stderr).toContain("EADDRINUSE");
    expect(served.stdout).not.toMatch(/fp_[A-Za-z0-9_-]{20,}/);
    const listed = await runCli(["keys", "list"], { FLAGPOST_DB: db });
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim()).toBe("");
  });
});
