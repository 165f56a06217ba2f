import { type Kysely, type RawBuilder, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { idempotencyRowId } from "../../adapters/kysely/idempotency-repository.js";
import type { FlagpostError } from "../../src/errors.js";
import type { ApiKeyRecord, SendingDomainRecord, Storage } from "../../src/ports/storage/index.js";
import { until } from "../support/until.js";
import { createTestStorage, describeIfBackend, type TestDatabase } from "../support/databases.js";

const HASH = "c".repeat(64);

function key(id: string): ApiKeyRecord {
  return { id, name: id, hash: HASH, scopes: ["flags:read"], createdAt: Date.parse("2026-01-01T00:00:00.000Z") };
}

/**
 * InnoDB's own deadlock among inserts of one unique key, provoked on purpose: a transaction
 * inserts the key and holds it; two inserts of the same key wait for it with a shared lock each;
 * the first rolls back, both waiters are granted their shared (gap) locks, each then needs the
 * insert-intention lock the other's shared lock blocks, and InnoDB aborts one of them
 * (ER_LOCK_DEADLOCK, 1213). Under load the same happens without a holder, whenever a few inserts of
 * a key meet delete-marked index records of it (a row deleted just before, not purged yet).
 */
describeIfBackend("mysql", "concurrent inserts of one unique key on MariaDB/MySQL", () => {
  let storage: Storage;
  let database: TestDatabase;
  let holder: Kysely<any>;
  beforeAll(async () => {
    ({ storage, database } = await createTestStorage("mysql"));
    holder = database.open();
  });
  afterAll(async () => {
    await storage.close();
    await database.drop();
  });

  /**
   * Statements of this test's database that have been blocked for 100 ms or more: a one-row
   * INSERT blocks only on a lock. (Processlist, not innodb_trx: MariaDB's innodb_trx was seen to
   * leave out one of two waiting transactions for seconds.)
   */
  async function blockedStatements(): Promise<number> {
    const name = new URL(database.url).pathname.slice(1);
    const { rows } = await sql<{ blocked: number | string }>`
      select count(*) as blocked from information_schema.processlist
      where db = ${name} and command = 'Query' and info like 'insert%' and time_ms >= 100`.execute(database.db);
    return Number(rows[0]!.blocked);
  }

  /**
   * Holds `held` (an INSERT of the contested key) in a transaction of its own until `racers` both
   * wait for it, then rolls it back: the two racers deadlock, and what they answer is returned.
   */
  async function raceAfterRollback<T>(held: RawBuilder<unknown>, racers: () => Promise<T>[]) {
    return holder.connection().execute(async (connection) => {
      await sql`start transaction`.execute(connection);
      await held.execute(connection);
      const settled = Promise.allSettled(racers());
      await until("both inserts waiting for the held key", async () => (await blockedStatements()) === 2, 5_000);
      await sql`rollback`.execute(connection);
      return settled;
    });
  }

  it("answers conflict, not unavailable, to the API key insert InnoDB picks as the deadlock victim", async () => {
    const results = await raceAfterRollback(
      sql`insert into flagpost_api_keys (id, name, hash, scopes, created_at) values ('held', 'held', ${HASH}, '[]', 0)`,
      () => [storage.apiKeys.insert(key("k1")), storage.apiKeys.insert(key("k2"))],
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected");
    expect((rejected?.reason as FlagpostError | undefined)?.code).toBe("conflict");
    expect((await storage.apiKeys.findByHash(HASH))?.id).toMatch(/^k[12]$/);
  });

  it("answers conflict, not unavailable, to the add of a sending domain InnoDB picks as the deadlock victim", async () => {
    const domain = (id: string): SendingDomainRecord => ({
      id,
      name: "race.example.com",
      region: "us-east-1",
      status: "not_started",
      selector: "flagpost1",
      privateKey: "sealed",
      returnPath: "mail",
      records: [],
      openTracking: false,
      clickTracking: false,
      tls: "opportunistic",
      createdAt: 0,
      updatedAt: 0,
    });
    const results = await raceAfterRollback(
      sql`insert into flagpost_domains (id, name, region, status, selector, private_key, return_path, records, open_tracking, click_tracking, tls, created_at, updated_at)
          values ('held', 'race.example.com', 'us-east-1', 'not_started', 's', 'k', 'mail', '[]', 0, 0, 'opportunistic', 0, 0)`,
      () => [storage.domains.insertDomain(domain("d1")), storage.domains.insertDomain(domain("d2"))],
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected");
    expect((rejected?.reason as FlagpostError | undefined)?.code).toBe("conflict");
    expect((await storage.domains.getDomainByName("race.example.com"))?.id).toMatch(/^d[12]$/);
  });

  it("answers both first callers of a setting the one value stored when InnoDB aborts one of them", async () => {
    const results = await raceAfterRollback(
      sql`insert into flagpost_settings (name, value) values ('race', 'held')`,
      () => [storage.settings.getOrCreateSetting("race", "a"), storage.settings.getOrCreateSetting("race", "b")],
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    const values = results.map((r) => (r as PromiseFulfilledResult<string>).value);
    expect(values[0]).toBe(values[1]);
    expect(["a", "b"]).toContain(values[0]);
  });

  it("gives one of two first claims of an idempotency key the key and tells the other it is in progress", async () => {
    const at = Date.parse("2026-05-01T00:00:00.000Z");
    const claim = {
      scope: "s",
      key: "k",
      fingerprint: "f".repeat(64),
      now: at,
      lockedUntil: at + 60_000,
      expiresAt: at + 86_400_000,
    };
    const results = await raceAfterRollback(
      sql`insert into flagpost_idempotency (id, scope, idempotency_key, fingerprint, locked_until, expires_at, completed, created_at)
          values (${idempotencyRowId("s", "k")}, 's', 'k', 'held', 0, ${at + 1}, 0, 0)`,
      () => [storage.idempotency.begin(claim), storage.idempotency.begin(claim)],
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    const states = results.map((r) => (r as PromiseFulfilledResult<{ state: string }>).value.state);
    expect(states.sort()).toEqual(["in_progress", "started"]);
  });
});
