import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { FlagpostError } from "../../src/errors.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { createTestStorage, type TestDatabase } from "../support/databases.js";

/**
 * adapters/kysely/unit-of-work.ts: what a transaction's caller gets back. The database's own
 * errors become `unavailable` (503); an error the caller's code threw is handed back as it is, so
 * a plain bug reads as one (500). The driver errors here are SQLite's own, not made up.
 */
describe("errors out of a Kysely transaction (SQLite)", () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  async function storage(): Promise<Storage> {
    const created = await createTestStorage("sqlite");
    database = created.database;
    return created.storage;
  }

  it("hands back a plain bug thrown after a statement ran, unchanged", async () => {
    const s = await storage();
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    const error = await s
      .transaction(async (tx) => {
        await tx.suppressions.lock(["a@example.com"]);
        throw bug;
      })
      .catch((e: unknown) => e);
    expect(error).toBe(bug);
  });

  it("turns a statement's driver error into unavailable, even when the caller lets it pass", async () => {
    const s = await storage();
    await sql`drop table flagpost_suppressions`.execute(database!.db);
    const error = await s.transaction((tx) => tx.suppressions.lock(["a@example.com"])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlagpostError);
    expect(error).toMatchObject({ code: "unavailable" });
    expect((error as FlagpostError).message).toMatch(/^The SQLite database could not complete the transaction/);
    expect((error as FlagpostError).message).not.toContain("flagpost_suppressions");
  });
});
