import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { spawnCli, waitForOutput } from "../support/cli.js";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";

/**
 * `flagpost serve` on PostgreSQL LISTENs for flag changes on a connection of its own (issue 11,
 * item 8): it says so in its log, and a flag write committed by another process reaches its
 * evaluate answers. The bound itself (milliseconds rather than the 1 s poll) is measured by the
 * several-processes suite of `npm run test:reliability`, not asserted here.
 */

const API_KEY = "serve-listen-test-key-0123456789";

describeIfBackend("postgres", "flagpost serve on PostgreSQL", () => {
  let database: TestDatabase | undefined;
  let child: ChildProcess | undefined;
  let other: Flagpost | undefined;

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
    await other?.close();
    await database?.drop();
    child = undefined;
    other = undefined;
    database = undefined;
  });

  it("LISTENs for flag changes and answers with another process's write", async () => {
    database = await createTestDatabase("postgres");
    child = spawnCli(["serve"], { FLAGPOST_DB: database.url, PORT: "0", FLAGPOST_API_KEY: API_KEY });
    // Both lines, in either order: the watch connects on its own schedule.
    const output = await waitForOutput(child, /^(?=[\s\S]*"msg":"listening")(?=[\s\S]*"msg":"watching flag changes")/);
    const url = (JSON.parse(output.split("\n").find((line) => line.includes('"msg":"listening"'))!) as { url: string })
      .url;

    // Another process: its own pool on the same schema, writing a flag serve has never seen.
    other = createFlagpost({ storage: kyselyStorage(database.open()) });
    await other.ready();
    await other.flags.create({ key: "from-elsewhere", enabled: false });
    const evaluate = async () => {
      const response = await fetch(`${url}/v1/flags/from-elsewhere/evaluate`, {
        method: "POST",
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ userId: "u1" }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { data: { enabled: boolean } }).data.enabled;
    };
    expect(await evaluate()).toBe(false);
    await other.flags.update("from-elsewhere", { enabled: true });
    let enabled = false;
    for (let round = 0; !enabled && round < 400; round += 1) {
      enabled = await evaluate();
      if (!enabled) await delay(25); // waiting for the notification, not asserting how fast it comes
    }
    expect(enabled).toBe(true);
  });
});
