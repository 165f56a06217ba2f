import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, sql, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { engineTraits } from "../../adapters/kysely/engines/index.js";
import { SLICES_PER_DURABLE_COMMIT, writeSlices } from "../../adapters/kysely/email-content-slices.js";
import { relaxTransaction, withRelaxedCommit, withSyncedCommit } from "../../adapters/kysely/relaxed-durability.js";
import { inTransaction, markDeliveriesStored, onDeliveriesCommitted } from "../../adapters/kysely/transaction.js";
import type { FlagpostTables } from "../../adapters/kysely/tables.js";
import { openDatabase } from "../../cli/open-database.js";

/** A SQLite file in `journalMode` at synchronous=FULL, behind a Kysely that logs every statement it runs. */
function loggedSqlite(path: string, journalMode: string) {
  const file = new Database(path);
  file.pragma(`journal_mode = ${journalMode}`);
  file.pragma("synchronous = FULL");
  const statements: string[] = [];
  const db = new Kysely<FlagpostTables>({
    dialect: new SqliteDialect({ database: file }),
    log: (event) => {
      statements.push(event.query.sql);
    },
  });
  return { file, db, statements };
}

/**
 * Issue 30, decision 1: claims and outcomes commit without waiting for the disk, acceptance
 * keeps waiting. These read the engines' own settings inside and after a relaxed commit.
 */
describe("relaxed commits for claims and outcomes", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("SQLite (WAL): NORMAL inside, FULL again after, for the next acceptance", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-relaxed-"));
    const db = await openDatabase(join(dir, "flagpost.db"));
    const level = async (on: typeof db) =>
      (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(on)).rows[0]!.synchronous;
    try {
      expect(await level(db)).toBe(2);
      const inside = await withRelaxedCommit(db, "sqlite", (held) => level(held));
      expect(inside).toBe(1);
      expect(await level(db)).toBe(2);
      // A failing claim restores FULL too.
      await expect(withRelaxedCommit(db, "sqlite", () => Promise.reject(new Error("claim failed")))).rejects.toThrow(
        "claim failed",
      );
      expect(await level(db)).toBe(2);
    } finally {
      await db.destroy();
    }
  });

  it("SQLite: a relaxed commit at FULL adds three statements (the level, NORMAL, the restore), mode and file read once per connection; a rollback journal is left at FULL", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-relaxed-"));
    for (const mode of ["WAL", "DELETE"]) {
      const { file, db, statements } = loggedSqlite(join(dir, `${mode}.db`), mode);
      const relaxedLevel = () =>
        withRelaxedCommit(db, "sqlite", async (held) => {
          const before = statements.length;
          const level = (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(held)).rows[0]!.synchronous;
          statements.splice(before);
          return level;
        });
      try {
        expect(await relaxedLevel()).toBe(mode === "WAL" ? 1 : 2);
        // The first reads level, journal mode and file in one statement.
        expect(statements).toHaveLength(mode === "WAL" ? 3 : 1);
        expect(statements[0]).toContain("pragma_database_list");
        statements.length = 0;
        expect(await relaxedLevel()).toBe(mode === "WAL" ? 1 : 2);
        expect(statements).toEqual(
          mode === "WAL" ? ["PRAGMA synchronous", "PRAGMA synchronous = NORMAL", "PRAGMA synchronous = 2"] : [],
        );
        // A level changed on the connection meanwhile is read again, and left alone below FULL.
        file.pragma("synchronous = OFF");
        statements.length = 0;
        expect(await relaxedLevel()).toBe(0);
        expect(statements).toEqual(mode === "WAL" ? ["PRAGMA synchronous"] : []);
        expect(file.pragma("synchronous", { simple: true })).toBe(0);
        file.pragma("synchronous = FULL");
        expect(await relaxedLevel()).toBe(mode === "WAL" ? 1 : 2);
        expect(file.pragma("synchronous", { simple: true })).toBe(2);
      } finally {
        await db.destroy();
      }
    }
  });

  it("SQLite: a transaction on the held connection that stored webhook deliveries still wakes the instance's listeners", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-relaxed-"));
    const db = await openDatabase(join(dir, "flagpost.db"));
    let woken = 0;
    const stop = onDeliveriesCommitted(db, () => (woken += 1));
    try {
      for (const commit of [withRelaxedCommit, withSyncedCommit])
        await commit(db, "sqlite", (held) => inTransaction(held, "sqlite", async (trx) => markDeliveriesStored(trx)));
      await new Promise((resolve) => setImmediate(resolve));
      expect(woken).toBe(2);
    } finally {
      stop();
      // What a storage's close does: the synced commit's WAL descriptor is not left open.
      await engineTraits("sqlite").releaseSyncedCommits(db);
      await db.destroy();
    }
  });

  it.skipIf(!process.env.FLAGPOST_TEST_PG_URL)(
    "PostgreSQL: synchronous_commit off for that transaction only",
    async () => {
      const db = await openDatabase(process.env.FLAGPOST_TEST_PG_URL!);
      const setting = async (on: typeof db) =>
        (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(on)).rows[0]!.synchronous_commit;
      try {
        const inside = await db.transaction().execute(async (trx) => {
          await relaxTransaction(trx, "postgres");
          return setting(trx);
        });
        expect(inside).toBe("off");
        expect(await setting(db)).toBe("on");
      } finally {
        await db.destroy();
      }
    },
  );

  it("SQLite: a large email's slices commit relaxed, every few and the last one durably", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-relaxed-"));
    const { file, db, statements } = loggedSqlite(join(dir, "flagpost.db"), "WAL");
    file.exec(
      "CREATE TABLE flagpost_email_content_slices (email_id TEXT, seq INTEGER, bytes BLOB, created_at INTEGER)",
    );
    try {
      await writeSlices(db, "sqlite", "0197aaaa-0000-7000-8000-000000000001", Array(10).fill("slice"), Date.now());
      // The synchronous level each slice's INSERT ran at, from the statements in order.
      let level = "FULL";
      const levels: string[] = [];
      for (const statement of statements) {
        if (/^PRAGMA synchronous = NORMAL$/i.test(statement)) level = "NORMAL";
        else if (/^PRAGMA synchronous = 2$/i.test(statement)) level = "FULL";
        else if (statement.startsWith('insert into "flagpost_email_content_slices"')) levels.push(level);
      }
      expect(SLICES_PER_DURABLE_COMMIT).toBe(4);
      // Durable: the 4th, the 8th, and the last, so the email's own commit syncs only itself.
      const F = "FULL";
      const N = "NORMAL";
      expect(levels).toEqual([N, N, N, F, N, N, N, F, N, F]);
      expect(file.pragma("synchronous", { simple: true })).toBe(2);
    } finally {
      await db.destroy();
    }
  });
});
