import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { createFlagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import { runCli } from "../support/cli.js";

let dir: string;
let file: string;

async function withFlagpost<T>(work: (fp: ReturnType<typeof createFlagpost>) => Promise<T>): Promise<T> {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(file) }) });
  const fp = createFlagpost({ storage: kyselyStorage(db, { destroyOnClose: true }), logger: silentLogger });
  try {
    await fp.ready();
    return await work(fp);
  } finally {
    await fp.close();
  }
}

const remaining = () =>
  withFlagpost(async (fp) =>
    (await fp.events.query({ limit: 1000 })).data.map((e) => `${e.userId}@${e.timestamp.slice(0, 10)}`),
  );

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "flagpost-cli-events-"));
  file = join(dir, "flagpost.db");
  const now = Date.now();
  await withFlagpost((fp) =>
    fp.events.trackBatch([
      { event: "e", userId: "old", timestamp: "2025-12-31T23:59:59.999Z" },
      { event: "e", userId: "old", timestamp: "2026-01-01T00:00:00+01:00" }, // 2025-12-31T23:00Z
      { event: "e", userId: "new", timestamp: "2026-01-01T00:00:00Z" },
      { event: "e", userId: "recent", timestamp: new Date(now - 86_400_000).toISOString() },
    ]),
  );
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe("flagpost events", () => {
  it("purge --before <ISO date> deletes older events and prints how many", async () => {
    const run = await runCli(["events", "purge", "--before", "2026-01-01"], { FLAGPOST_DB: file });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Deleted 2 events with a timestamp before 2026-01-01.\n");
    const left = await remaining();
    expect(left).toHaveLength(2);
    expect(left).toContain("new@2026-01-01");
  });

  it("purge --before <N>d keeps the last N days", async () => {
    const run = await runCli(["events", "purge", "--before", "30d"], { FLAGPOST_DB: file });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Deleted 3 events with a timestamp before \d{4}-\d\d-\d\dT[\d:.]+Z\.\n$/);
    expect(await remaining()).toEqual([expect.stringMatching(/^recent@/)]);
  });

  it("delete --user removes exactly that user's events", async () => {
    const run = await runCli(["events", "delete", "--user", "old"], { FLAGPOST_DB: file });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Deleted 2 events of user "old".\n');
    expect(await remaining()).not.toContainEqual(expect.stringMatching(/^old@/));
  });

  it("refuses a bad or missing date with exit code 2, deleting nothing", async () => {
    const bad = await runCli(["events", "purge", "--before", "last tuesday"], { FLAGPOST_DB: file });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--before must be an ISO 8601 date");
    const missing = await runCli(["events", "purge"], { FLAGPOST_DB: file });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("events purge needs --before");
    expect(await remaining()).toHaveLength(4);
  });
});
