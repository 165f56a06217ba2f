import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { FlagpostError } from "../../src/errors.js";
import type { ApiKeyRecord, Storage } from "../../src/ports/storage/index.js";
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

  /** Transactions of this test's database waiting for a lock. */
  async function lockWaits(): Promise<number> {
    const name = new URL(database.url).pathname.slice(1);
    const { rows } = await sql<{ waiting: number | string }>`
      select count(*) as waiting from information_schema.innodb_trx t
      join information_schema.processlist p on p.id = t.trx_mysql_thread_id
      where t.trx_state = 'LOCK WAIT' and p.db = ${name}`.execute(database.db);
    return Number(rows[0]!.waiting);
  }

  it("answers conflict, not unavailable, to the insert InnoDB picks as the deadlock victim", async () => {
    const results = await holder.connection().execute(async (connection) => {
      await sql`start transaction`.execute(connection);
      await sql`insert into flagpost_api_keys (id, name, hash, scopes, created_at) values ('held', 'held', ${HASH}, '[]', 0)`.execute(
        connection,
      );
      const inserts = Promise.allSettled([storage.apiKeys.insert(key("k1")), storage.apiKeys.insert(key("k2"))]);
      await until("both inserts waiting for the held key", async () => (await lockWaits()) === 2, 5_000);
      await sql`rollback`.execute(connection);
      return inserts;
    });
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected");
    expect((rejected?.reason as FlagpostError | undefined)?.code).toBe("conflict");
    expect((await storage.apiKeys.findByHash(HASH))?.id).toMatch(/^k[12]$/);
  });
});
