import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { allRoutes } from "../../adapters/http/routes/index.js";
import { PROVIDER_AUTH, type ProviderRoute } from "../../adapters/http/types.js";
import { hasScope, SCOPES, type Scope } from "../../src/auth/index.js";
import { mailgunSource, postmarkSource, sendgridSource, sesSource } from "../../adapters/inbound/providers/index.js";
import { sendgridKeys } from "../inbound/support/provider-requests.js";
import { answerOf } from "./support/answers.js";
import { startApp, type TestApp } from "../support/servers.js";

/**
 * Issue 11, "Auth": the route × scope matrix, generated from the route table itself, so a route
 * added later is in it at once: with a key holding any one scope, every route answers 403
 * restricted_api_key exactly when the scope does not cover the route's, and never 401/403
 * otherwise. Routes a mail provider calls (`scope: "provider"`) take no key at all: whatever key
 * is sent, and with none, they answer 401 until the provider's signature is there — so a route
 * declared without any check fails here too. Then the Bearer header's edge cases, and how soon a
 * revocation made by another process is honoured.
 */
describe("auth matrix from the route table", () => {
  let app: TestApp;
  const keys = new Map<Scope, string>();
  let emailId = "";
  // Every provider configured: an unconfigured one would answer 404 and prove nothing.
  const inbound = [
    sesSource({ topicArns: ["arn:aws:sns:eu-west-1:123456789012:ses-notifications"] }),
    sendgridSource({ publicKey: sendgridKeys().verificationKey }),
    mailgunSource({ signingKey: "matrix-signing-key" }),
    postmarkSource({ user: "postmark", password: "matrix-password" }),
  ];

  beforeAll(async () => {
    app = await startApp({ http: { rateLimit: false, inbound } });
    for (const scope of SCOPES) keys.set(scope, (await app.fp.keys.create({ name: scope, scopes: [scope] })).key);
    emailId = (await app.fp.emails.send({ from: "a@example.com", to: "b@example.com", subject: "s", text: "t" })).id;
  });
  afterAll(() => app.close());

  /** A concrete path for a route pattern: parameters filled with things that exist. */
  function pathOf(pattern: string): string {
    return pattern.replace(/:(\w+)/g, (_, name: string) =>
      name === "key" ? `matrix-${Math.random().toString(36).slice(2)}` : name === "id" ? emailId : `x-${name}`,
    );
  }

  // Outside the /v1 route table (at the mount point, like /health), so listed here by hand.
  it("answers GET /metrics (scope metrics:read) with 200 exactly for the keys whose scope covers it", async () => {
    for (const scope of SCOPES) {
      const response = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${keys.get(scope)}` } });
      const text = await response.text();
      const cell = `GET /metrics with only "${scope}"`;
      if (hasScope([scope], "metrics:read")) expect(response.status, `${cell}: ${text}`).toBe(200);
      else
        expect({ status: response.status, code: answerOf(response.status, text).code }, cell).toEqual({
          status: 403,
          code: "restricted_api_key",
        });
    }
    expect((await fetch(`${app.url}/metrics`)).status).toBe(401);
    const forged = await fetch(`${app.url}/metrics`, { headers: { authorization: "Bearer fp_not_a_key_at_all_1234" } });
    // As on /v1 (and Resend): an unknown key is 403 invalid_api_key, a missing one 401.
    expect(answerOf(forged.status, await forged.text())).toMatchObject({ status: 403, code: "invalid_api_key" });
  });

  it("gives every route a scope, and answers each route × scope cell as hasScope says", async () => {
    const table = allRoutes(app.fp, inbound);
    expect(table.length).toBeGreaterThanOrEqual(14);
    let cells = 0;
    for (const route of table) {
      if (route.scope === PROVIDER_AUTH) {
        cells += await providerCells(route);
        continue;
      }
      expect(SCOPES, `${route.method} ${route.path} has scope ${String(route.scope)}`).toContain(route.scope);
      for (const scope of SCOPES) {
        const path = pathOf(route.path);
        if (path.includes("/v1/flags/matrix-")) await app.fp.flags.create({ key: path.split("/")[3]! });
        const response = await fetch(app.url + path, {
          method: route.method,
          headers: {
            authorization: `Bearer ${keys.get(scope)}`,
            ...(route.body ? { "content-type": "application/json" } : {}),
          },
          ...(route.body ? { body: "{}" } : {}),
        });
        // A stream (GET /v1/flags/_stream) never ends by itself: its status is the answer.
        const streamed = response.headers.get("content-type")?.startsWith("text/event-stream") === true;
        const text = streamed ? "" : await response.text();
        if (streamed) await response.body?.cancel();
        const answer = answerOf(response.status, text);
        const cell = `${route.method} ${route.path} with only "${scope}" (needs "${route.scope}")`;
        if (hasScope([scope], route.scope)) {
          expect([401, 403], `${cell}: ${answer.message}`).not.toContain(answer.status);
        } else {
          expect({ status: answer.status, code: answer.code }, cell).toEqual({
            status: 403,
            code: "restricted_api_key",
          });
          expect(answer.message, cell).toContain(route.scope);
        }
        cells += 1;
      }
    }
    expect(cells).toBe(table.length * SCOPES.length);
  }, 120_000);

  /**
   * A provider route answers 401 missing_signature to every key, and to no key: keys do not open it.
   * The route behind the configured sources (`/v1/inbound/:source`) answers 404 to every key alike.
   */
  async function providerCells(route: ProviderRoute): Promise<number> {
    const expected = route.path.includes("/:")
      ? { status: 404, code: "not_found" }
      : { status: 401, code: "missing_signature" };
    expect(SCOPES as readonly string[]).not.toContain(route.scope);
    let cells = 0;
    for (const scope of [...SCOPES, undefined]) {
      const response = await fetch(app.url + route.path, {
        method: route.method,
        headers: {
          "content-type": "application/json",
          ...(scope === undefined ? {} : { authorization: `Bearer ${keys.get(scope)}` }),
        },
        body: "{}",
      });
      const answer = answerOf(response.status, await response.text());
      const cell = `${route.method} ${route.path} with ${scope === undefined ? "no key" : `only "${scope}"`}`;
      expect({ status: answer.status, code: answer.code }, `${cell}: ${answer.message}`).toEqual(expected);
      if (scope !== undefined) cells += 1;
    }
    return cells;
  }

  /**
   * Paths outside the route table that take no key on purpose: flagpost's own unsubscribe link
   * (issue 28), whose signed token is its only credential — a recipient's mail client calls it.
   * Each answers alike with no key and with any key (a bad token: the same 404), never 401/403.
   */
  const DELIBERATELY_PUBLIC = [
    ["GET", "/v1/unsubscribe/:token"],
    ["POST", "/v1/unsubscribe/:token"],
  ] as const;

  it("answers the deliberately public paths alike with any key or none, and the route table has none of them", async () => {
    const table = allRoutes(app.fp);
    for (const [method, pattern] of DELIBERATELY_PUBLIC) {
      expect(table.some((r) => r.path.startsWith("/v1/unsubscribe"))).toBe(false);
      const path = pattern.replace(":token", `${emailId}.${"A".repeat(22)}`);
      const answers = new Set<string>();
      for (const scope of [undefined, ...SCOPES]) {
        const response = await fetch(app.url + path, {
          method,
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            ...(scope === undefined ? {} : { authorization: `Bearer ${keys.get(scope)}` }),
          },
          ...(method === "POST" ? { body: "List-Unsubscribe=One-Click" } : {}),
        });
        answers.add(`${response.status} ${await response.text()}`);
      }
      expect(
        [...answers].map((a) => a.slice(0, 3)),
        `${method} ${pattern}`,
      ).toEqual(["404"]);
    }
  });

  it("parses the Bearer header strictly", async () => {
    const key = keys.get("full_access")!;
    const cases: [string, number, string | undefined][] = [
      [`Bearer ${key}`, 200, undefined],
      [`bearer ${key}`, 200, undefined],
      [`BEARER ${key}`, 200, undefined],
      [`Bearer   ${key}  `, 200, undefined], // spaces around the token are not part of it
      [`Bearer ${key}x`, 403, "invalid_api_key"],
      [`Bearer ${key.slice(0, -1)}`, 403, "invalid_api_key"],
      [`Bearer ${key} ${key}`, 403, "invalid_api_key"],
      [`Bearer ${key}, Bearer ${key}`, 403, "invalid_api_key"], // two headers, joined by the server
      [`Bearer x${"y".repeat(600)}`, 403, "invalid_api_key"],
      [`Bearer\t${key}`, 401, "missing_api_key"],
      [`Bearer`, 401, "missing_api_key"],
      [`Bearer${key}`, 401, "missing_api_key"],
      [`Basic ${Buffer.from(`${key}:`).toString("base64")}`, 401, "missing_api_key"],
      [key, 401, "missing_api_key"],
      [`Token ${key}`, 401, "missing_api_key"],
      [`Bearer: ${key}`, 401, "missing_api_key"],
    ];
    for (const [authorization, status, code] of cases) {
      const response = await fetch(`${app.url}/v1/flags`, { headers: { authorization } });
      const answer = answerOf(response.status, await response.text());
      expect(
        { status: answer.status, code: status === 200 ? undefined : answer.code },
        authorization.slice(0, 60),
      ).toEqual({ status, code });
    }
  });
});

describe("revocation by another process", () => {
  let dir: string;
  const dbs: Kysely<any>[] = [];
  const apps: TestApp[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-revoke-"));
    const file = join(dir, "db.sqlite");
    for (let i = 0; i < 2; i++) {
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(file) }) });
      dbs.push(db);
      apps.push(await startApp({ storage: kyselyStorage(db) }));
    }
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    for (const db of dbs) await db.destroy().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it("is honoured within 1 s by a process that had just verified the key", async () => {
    const [a, b] = apps as [TestApp, TestApp];
    const made = await a.fp.keys.create({ scopes: ["flags:read"] });
    const ask = async () =>
      (await fetch(`${b.url}/v1/flags`, { headers: { authorization: `Bearer ${made.key}` } })).status;
    expect(await ask()).toBe(200); // b now holds the key in its cache
    await a.fp.keys.revoke(made.id);
    const revokedAt = performance.now();
    let status = await ask();
    while (status === 200 && performance.now() - revokedAt < 3_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = await ask();
    }
    const seconds = (performance.now() - revokedAt) / 1000;
    expect(status).toBe(403);
    console.info(`auth: revocation honoured by the other process after ${seconds.toFixed(2)} s`);
    // The key cache lasts 1 s; on top of it, the poll's own round trip (slow on a loaded machine).
    expect(seconds).toBeLessThanOrEqual(1.5);
  });
});
