import { createServer } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { openDatabase } from "../../cli/open-database.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { Logger } from "../../src/ports/logger.js";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { listen, type Running } from "../support/servers.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { until } from "../support/until.js";

/**
 * Issue 24 §1 and §4, in process: flagpost on the pool `flagpost serve` builds (cli/open-database.ts),
 * talking to PostgreSQL through a TCP proxy that the test cuts and black-holes. Before the pool had
 * an 'error' listener, the cut ended the test process ("Connection terminated unexpectedly" as an
 * unhandled 'error' event); before the timeouts, the black hole held every request.
 */

const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 2_000;
/** Beyond the timeouts: the HTTP round trip and a busy 2-core machine. */
const SLACK_MS = 1_500;

let database: TestDatabase | undefined;
let proxy: TcpProxy | undefined;
let fp: Flagpost | undefined;
let server: Running | undefined;
afterEach(async () => {
  await server?.close();
  await fp?.close().catch(() => undefined);
  await proxy?.close();
  await database?.drop();
  server = fp = proxy = database = undefined;
});

function recordingLogger(lines: string[]): Logger {
  const record = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { info: record("info"), warn: record("warn"), error: record("error") };
}

describeIfBackend("postgres", "storage outage in process (PostgreSQL through a proxy)", () => {
  it("survives a cut and a black hole: 503 with Retry-After in time, evaluation from memory, /ready follows", async () => {
    database = await createTestDatabase("postgres");
    const pg = new URL(database.url);
    proxy = await startTcpProxy(pg.hostname, Number(pg.port || 5432));
    const logged: string[] = [];
    const db = await openDatabase(proxy.via(database.url), {
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      logger: recordingLogger(logged),
    });
    fp = createFlagpost({ storage: kyselyStorage(db, { destroyOnClose: true }), logger: recordingLogger([]) });
    await fp.ready();
    const { key } = await fp.keys.create({ scopes: ["full_access"] });
    await fp.flags.create({ key: "checkout", enabled: true });
    server = await listen(createServer(toNodeHandler(fp)));
    const url = server.url;
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const evaluate = () =>
      fetch(`${url}/v1/flags/checkout/evaluate`, { method: "POST", headers, body: '{"userId":"u1"}' });
    const track = () =>
      fetch(`${url}/v1/events`, { method: "POST", headers, body: '{"event":"outage.test","userId":"u1"}' });
    const readiness = async () => (await fetch(`${url}/ready`)).status;

    expect((await evaluate()).status).toBe(200); // the key is verified once, while storage answers
    expect((await track()).status).toBe(202);
    // The snapshot route reads storage once, on its first request; from then on it answers from memory.
    expect((await fetch(`${url}/v1/flags/_snapshot`, { headers })).status).toBe(200);
    expect(await readiness()).toBe(200);

    // Cut: every connection closes, new ones are refused.
    await proxy.cut();
    await until("the pool reports its lost idle connections", () => logged.some((l) => l.startsWith("warn")), 5_000);
    await delay(1_100); // past the 1 s key cache: the key must now come from memory
    const evaluated = await evaluate();
    expect(evaluated.status).toBe(200);
    expect(((await evaluated.json()) as { data: { enabled: boolean } }).data.enabled).toBe(true);
    expect((await fetch(`${url}/v1/flags/_snapshot`, { headers })).status).toBe(200);
    let started = Date.now();
    const refused = await track();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(Date.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);
    expect(await readiness()).toBe(503);
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: "ok" });

    await proxy.restore();
    const back = await until("/ready is 200 again", async () => (await readiness()) === 200, 2_000 + SLACK_MS);
    expect(back).toBeLessThan(2_000 + SLACK_MS);
    expect((await track()).status).toBe(202);

    // Black hole: connections stay open, nothing answers.
    proxy.blackHole();
    await delay(1_100);
    started = Date.now();
    expect((await evaluate()).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000); // waits for storage at most 500 ms
    started = Date.now();
    const timedOut = await track();
    expect(timedOut.status).toBe(503);
    expect(timedOut.headers.get("retry-after")).toBe("5");
    expect(Date.now() - started).toBeLessThan(STATEMENT_TIMEOUT_MS + SLACK_MS);
    started = Date.now();
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(503);
    // "unavailable" once a timed-out call marked the database down (the check then fails at once),
    // else "no answer within 2000 ms".
    expect(await ready.json()).toEqual({
      status: "unavailable",
      checks: { storage: expect.stringMatching(/^(unavailable|no answer within 2000 ms)$/) },
    });
    expect(Date.now() - started).toBeLessThan(2_000 + SLACK_MS);

    await proxy.restore();
    await until("/ready is 200 after the black hole", async () => (await readiness()) === 200, 2_000 + SLACK_MS * 2);
    expect((await track()).status).toBe(202);
  });
});
