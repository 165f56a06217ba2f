import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { type Target, VARIANTS } from "../support/frameworks.js";

/** Issue 29 §1: GET /health and GET /ready, without a key, at the mount point of every translator. */

let target: Target | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
  await database?.drop();
  database = undefined;
});

for (const variant of Object.values(VARIANTS)) {
  describe(`probes on ${variant.name}`, () => {
    it("answers /health and /ready without a key, HEAD too, and 405 to other methods", async () => {
      target = await variant.start();
      const health = await fetch(`${target.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
      const ready = await fetch(`${target.url}/ready`);
      expect(ready.status).toBe(200);
      expect(ready.headers.get("cache-control")).toBe("no-store");
      expect(await ready.json()).toEqual({ status: "ok", checks: { storage: "ok", migrations: "ok" } });
      const head = await fetch(`${target.url}/ready`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe("");
      const post = await fetch(`${target.url}/ready`, { method: "POST" });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD");
    });
  });
}

describe("/ready on SQLite", () => {
  it("is 503 naming `migrations` while a migration has not run, and 200 once it has", async () => {
    database = await createTestDatabase("sqlite");
    const storage = kyselyStorage(database.db);
    target = await VARIANTS.node.start({ storage });
    expect((await fetch(`${target.url}/ready`)).status).toBe(200);
    await sql`delete from flagpost_migration where name = '0001-baseline'`.execute(database.db);
    const behind = await fetch(`${target.url}/ready`);
    expect(behind.status).toBe(503);
    expect(behind.headers.get("retry-after")).toBe("5");
    expect(await behind.json()).toEqual({
      status: "unavailable",
      checks: { storage: "ok", migrations: "not run: 0001-baseline" },
    });
    await sql`insert into flagpost_migration (name, timestamp) values ('0001-baseline', '2026-01-01')`.execute(
      database.db,
    );
    expect((await fetch(`${target.url}/ready`)).status).toBe(200);
  });

  it("can be left to the app (`probes: false`)", async () => {
    target = await VARIANTS.express.start({ http: { probes: false } });
    expect((await fetch(`${target.url}/health`)).status).toBe(404);
    expect((await fetch(`${target.url}/ready`)).status).toBe(404);
  });
});
