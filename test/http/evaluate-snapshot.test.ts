import { afterEach, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { type EventSink, FlagClient } from "../../src/flags/client/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { waitUntil } from "../flags/support/wait.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { startApp, type TestApp } from "../support/servers.js";

// POST /v1/flags/{key}/evaluate answers from the in-process flag snapshot (docs/http.md): writes
// of this process at once, writes of other processes within the flag sync interval, and a flag
// the snapshot does not hold from storage.

describe("POST /v1/flags/{key}/evaluate and the flag snapshot", () => {
  let database: TestDatabase | undefined;
  let app: TestApp | undefined;
  let writer: Flagpost | undefined;
  afterEach(async () => {
    await app?.close();
    await writer?.close();
    await database?.drop();
    app = writer = database = undefined;
  });

  /** A server and, on the same SQLite file, a second instance standing for another process. */
  async function twoProcesses(pollIntervalMs: number): Promise<{ app: TestApp; writer: Flagpost }> {
    database = await createTestDatabase("sqlite");
    writer = createFlagpost({ storage: kyselyStorage(database.db), logger: silentLogger });
    await writer.ready();
    app = await startApp({
      storage: kyselyStorage(database.open()),
      flagSync: { pollIntervalMs },
      http: { rateLimit: false },
    });
    return { app, writer };
  }

  const evaluate = async (key: string, context: unknown) => {
    const response = await app!.call("POST", `/v1/flags/${key}/evaluate`, context);
    return { status: response.status, body: (await response.json()) as unknown };
  };

  it("sees this process's writes at once", async () => {
    app = await startApp({ http: { rateLimit: false } });
    await app.fp.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });
    expect(await evaluate("beta", { userId: "u1" })).toEqual({
      status: 200,
      body: { data: { enabled: true, reason: "rule_match", ruleIndex: 0 } },
    });
    await app.fp.flags.update("beta", { enabled: false });
    expect(await evaluate("beta", { userId: "u1" })).toEqual({
      status: 200,
      body: { data: { enabled: false, reason: "disabled" } },
    });
    await app.fp.flags.delete("beta");
    expect((await evaluate("beta", { userId: "u1" })).status).toBe(404);
  });

  it("finds a flag created by another process at once, from storage", async () => {
    const { writer } = await twoProcesses(600_000);
    await writer.flags.create({ key: "fresh", enabled: true });
    expect(await evaluate("fresh", { userId: "u1" })).toEqual({
      status: 200,
      body: { data: { enabled: true, reason: "no_rules" } },
    });
  });

  it("answers from the snapshot until the sync brings another process's change", async () => {
    const { app, writer } = await twoProcesses(600_000);
    await writer.flags.create({ key: "beta", enabled: true });
    await app.fp.flags.update("beta", { description: "loaded" }); // this process's write: now in its snapshot
    await writer.flags.update("beta", { enabled: false });
    await writer.flags.delete("beta");
    // No sync within the test: the snapshot still holds the flag as this process last saw it.
    expect(await evaluate("beta", {})).toEqual({ status: 200, body: { data: { enabled: true, reason: "no_rules" } } });
  });

  it("converges within the sync interval", async () => {
    const { writer } = await twoProcesses(50);
    await writer.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });
    expect((await evaluate("beta", { userId: "u2" })).body).toEqual({
      data: { enabled: false, reason: "no_rule_match" },
    });
    await writer.flags.update("beta", { rules: [{ type: "users", userIds: ["u2"] }] });
    await waitUntil(
      async () =>
        JSON.stringify((await evaluate("beta", { userId: "u2" })).body) ===
        JSON.stringify({ data: { enabled: true, reason: "rule_match", ruleIndex: 0 } }),
      { timeoutMs: 10_000 },
    );
    await writer.flags.delete("beta");
    await waitUntil(async () => (await evaluate("beta", { userId: "u2" })).status === 404, { timeoutMs: 10_000 });
  });

  it("records no exposure events (only in-process isEnabled and flagClient.evaluate do)", async () => {
    const events: unknown[] = [];
    const sink: EventSink = { enqueue: (event) => void events.push(event) };
    app = await startApp({ storage: memoryStorage(), exposures: { enabled: true, sink }, http: { rateLimit: false } });
    await app.fp.flags.create({ key: "beta", enabled: true });
    for (const userId of ["u1", "u2", "u3"]) expect((await evaluate("beta", { userId })).status).toBe(200);
    app.fp.isEnabled("beta", { userId: "in-process" });
    await app.close();
    app = undefined;
    expect(events).toEqual([expect.objectContaining({ userId: "in-process" })]);
  });
});

describe("FlagClient.snapshotEvaluate", () => {
  it("answers undefined where the snapshot cannot: not loaded, unknown flag, a flag it cannot compile", () => {
    const { client, feed } = FlagClient.create();
    expect(client.snapshotEvaluate("beta", {})).toBeUndefined();
    feed.replace([
      { key: "beta", enabled: true, rules: [] },
      { key: "future", enabled: true, rules: [{ type: "geo" } as never] },
    ]);
    expect(client.snapshotEvaluate("beta", {})).toEqual({ enabled: true, reason: "no_rules" });
    expect(client.snapshotEvaluate("nope", {})).toBeUndefined();
    expect(client.snapshotEvaluate("future", {})).toBeUndefined();
  });
});
