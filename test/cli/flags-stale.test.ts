import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { openDatabase } from "../../cli/open-database.js";
import type { FlagRecord } from "../../src/ports/storage/flags.js";
import { flagWrites } from "../../src/flags/store/index.js";
import { waitUntil } from "../flags/support/wait.js";
import { runCli, spawnCli, waitForOutput } from "../support/cli.js";

const DAY = 86_400_000;
const HOUR = 3_600_000;

let dir: string;
let db: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "flagpost-stale-"));
  db = join(dir, "flagpost.db");
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

function flag(key: string, createdAt: number, n: number): FlagRecord {
  return {
    id: `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`,
    key,
    description: "",
    enabled: true,
    rules: [],
    variants: [],
    prerequisites: [],
    createdAt,
    updatedAt: createdAt,
  };
}

describe("flagpost flags stale", () => {
  it("lists the flags not evaluated or giving one result for the window, from the stored counts", async () => {
    const now = Date.now();
    const old = now - 40 * DAY;
    const hour = Math.floor((now - 2 * DAY) / HOUR) * HOUR;
    const lastAt = now - 2 * DAY + 60_000;
    const storage = kyselyStorage(await openDatabase(db), { destroyOnClose: true });
    await storage.migrate();
    await flagWrites(storage).insert(flag("unused", old, 1));
    await flagWrites(storage).insert(flag("always-on", old, 2));
    await flagWrites(storage).insert(flag("mixed", old, 3));
    await flagWrites(storage).insert(flag("new", now - DAY / 2, 4));
    await storage.flagInsights.add([
      { flagKey: "always-on", hour, enabled: true, variant: null, count: 12, lastAt },
      { flagKey: "mixed", hour, enabled: true, variant: null, count: 3, lastAt },
      { flagKey: "mixed", hour, enabled: false, variant: null, count: 4, lastAt },
    ]);
    await storage.close();

    const listed = await runCli(["flags", "stale"], { FLAGPOST_DB: db });
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^KEY\s+WHY\s+LAST EVALUATED$/);
    expect(lines[1]).toMatch(
      new RegExp(`^always-on\\s+always on\\s+${new Date(lastAt).toISOString().replace(/\./g, "\\.")}$`),
    );
    expect(lines[2]).toMatch(/^unused\s+not evaluated\s+never$/);
    expect(lines.at(-1)).toBe("2 stale flags (window: 30 days).");

    const narrow = await runCli(["flags", "stale", "--days", "1"], { FLAGPOST_DB: db });
    expect(narrow.stdout).toContain("mixed"); // its two results are older than one day
    expect(narrow.stdout).toContain("3 stale flags (window: 1 day).");

    const bad = await runCli(["flags", "stale", "--days", "0"], { FLAGPOST_DB: db });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--days must be a whole number");
  });
});

describe("flagpost serve: FLAGPOST_INSIGHTS_FLUSH_MS", () => {
  it("stores the evaluation counts that often", async () => {
    const key = "insights-test-key-0123456789";
    const child = spawnCli(["serve"], {
      FLAGPOST_DB: db,
      PORT: "0",
      FLAGPOST_API_KEY: key,
      FLAGPOST_INSIGHTS_FLUSH_MS: "100",
    });
    try {
      const output = await waitForOutput(child, /"msg":"listening"/);
      const url = JSON.parse(output.split("\n").find((l) => l.includes('"msg":"listening"'))!).url as string;
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${url}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      expect((await call("POST", "/v1/flags", { key: "counted", enabled: true })).status).toBe(201);
      for (let i = 0; i < 3; i++) expect((await call("POST", "/v1/flags/counted/evaluate", {})).status).toBe(200);
      // No flush is asked for: the 100 ms timer stores the counts.
      await waitUntil(
        async () => {
          const insights = (await (await call("GET", "/v1/flags/counted/insights")).json()) as {
            data: { hours: { evaluations: number }[] };
          };
          return insights.data.hours[0]?.evaluations === 3;
        },
        { timeoutMs: 10_000, stepMs: 50 },
      );
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("refuses a value that is not a whole number above 0", async () => {
    const bad = await runCli(["serve"], { FLAGPOST_DB: db, PORT: "0", FLAGPOST_INSIGHTS_FLUSH_MS: "soon" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("FLAGPOST_INSIGHTS_FLUSH_MS");
  });
});
