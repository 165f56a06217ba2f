import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { Logger } from "../../src/ports/logger.js";
import { backendUrl, createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { waitForOutput } from "../support/cli.js";
import { waitUntil } from "./support/wait.js";

// How soon isEnabled sees a write made elsewhere. Same process: at once (the change feed). Another
// process on PostgreSQL: within 2 s (LISTEN/NOTIFY). Other engines: the revision poll.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url));

/** Records log lines so a test can wait for "watching flag changes". */
function recordingLogger(): Logger & { messages: string[] } {
  const messages: string[] = [];
  const log = (message: string) => void messages.push(message);
  return { messages, info: log, warn: log, error: log };
}

describe("freshness on SQLite (revision poll)", () => {
  it("a write through another instance on the same file reaches isEnabled by the next poll", async () => {
    const database = await createTestDatabase("sqlite");
    const writer = createFlagpost({ storage: kyselyStorage(database.db), logger: recordingLogger() });
    const reader = createFlagpost({
      storage: kyselyStorage(database.open()),
      logger: recordingLogger(),
      flagSync: { pollIntervalMs: 50 },
    });
    try {
      await writer.ready();
      await writer.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });
      await reader.ready();
      expect(reader.isEnabled("beta", { userId: "u2" })).toBe(false);
      await writer.flags.update("beta", { rules: [{ type: "users", userIds: ["u2"] }] });
      await waitUntil(() => reader.isEnabled("beta", { userId: "u2" }), { timeoutMs: 10_000 });
      await writer.flags.delete("beta");
      await waitUntil(() => reader.flagClient.evaluate("beta").reason === "flag_not_found", { timeoutMs: 10_000 });
    } finally {
      await reader.close();
      await writer.close();
      await database.drop();
    }
  });
});

describe("kyselyStorage's listen option", () => {
  it("is refused on an engine other than PostgreSQL", async () => {
    const database = await createTestDatabase("sqlite");
    try {
      expect(() => kyselyStorage(database.db, { listen: () => Promise.reject(new Error("unused")) })).toThrow(
        /"listen" is for PostgreSQL; this Kysely instance uses sqlite/,
      );
      expect(kyselyStorage(database.db).watchFlags).toBeUndefined();
    } finally {
      await database.drop();
    }
  });
});

describeIfBackend("postgres", "freshness across processes on PostgreSQL (LISTEN/NOTIFY)", () => {
  const url = backendUrl("postgres")!;
  let database: TestDatabase;
  let fp: Flagpost;
  let logger: ReturnType<typeof recordingLogger>;
  let child: ChildProcess;
  const listenPids: number[] = [];

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
    logger = recordingLogger();
    const storage = kyselyStorage(database.db, {
      listen: async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        listenPids.push((client as unknown as { processID: number }).processID);
        return client;
      },
    });
    // Polls far apart: only a notification can bring a change within the test's bounds.
    fp = createFlagpost({ storage, logger, flagSync: { pollIntervalMs: 600_000, watchedPollIntervalMs: 600_000 } });
    await fp.ready();
    await fp.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["nobody"] }] });
    await waitUntil(() => logger.messages.includes("watching flag changes"), { timeoutMs: 15_000 });

    child = spawn(process.execPath, ["--import", TSX, "test/flags/support/write-flag.ts", url, rows[0]!.schema], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
    });
    await waitForOutput(child, /^ready$/m);
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.stdin!.end();
      await once(child, "exit");
    }
    await fp?.close();
    await database?.drop();
  });

  async function writeInChild(key: string, userId: string): Promise<void> {
    child.stdin!.write(`${key} ${userId}\n`);
    await waitForOutput(child, new RegExp(`^written ${key} ${userId}$`, "m"));
  }

  it("a write committed in another process reaches isEnabled within 2 s", async () => {
    for (const userId of ["u1", "u2", "u3"]) {
      await writeInChild("beta", userId);
      // Counted from the moment the other process reported the commit.
      await waitUntil(() => fp.isEnabled("beta", { userId }), { timeoutMs: 2_000 });
      expect(fp.flagClient.evaluate("beta", { userId })).toEqual({ enabled: true, reason: "rule_match", ruleIndex: 0 });
    }
  });

  it("listens again after the LISTEN connection is killed, and catches up", async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const before = logger.messages.filter((m) => m === "watching flag changes").length;
      await admin.query("select pg_terminate_backend($1)", [listenPids.at(-1)]);
      await waitUntil(() => logger.messages.includes("lost the flag change watch; polling until it is back"), {
        timeoutMs: 10_000,
      });
      // A write while the watch may still be down is caught by the refresh that follows reconnection.
      await writeInChild("beta", "u4");
      await waitUntil(() => logger.messages.filter((m) => m === "watching flag changes").length > before, {
        timeoutMs: 30_000,
      });
      await waitUntil(() => fp.isEnabled("beta", { userId: "u4" }), { timeoutMs: 10_000 });
      await writeInChild("beta", "u5");
      await waitUntil(() => fp.isEnabled("beta", { userId: "u5" }), { timeoutMs: 2_000 });
    } finally {
      await admin.end();
    }
  }, 60_000);
});
