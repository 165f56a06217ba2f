import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { relaxTransaction, withRelaxedCommit } from "../../adapters/kysely/relaxed-durability.js";
import { openDatabase } from "../../cli/open-database.js";

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
});
