import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { compiledOnce } from "../../adapters/kysely/compiled-once.js";
import { claimDueRowsIn, type JobTableSpec } from "../../adapters/kysely/job-claims.js";

describe("compiledOnce: hot statements built once, bound anew", () => {
  it("builds a shape once and binds each call's values into its slots", async () => {
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
    try {
      await db.schema.createTable("t").addColumn("id", "text").addColumn("n", "integer").execute();
      await db
        .insertInto("t")
        .values([
          { id: "a", n: 1 },
          { id: "b", n: 2 },
          { id: "c", n: 3 },
        ])
        .execute();
      let builds = 0;
      const query = (min: number, limit: number) =>
        compiledOnce(
          "test t above",
          (bind) => {
            builds += 1;
            return db.selectFrom("t").select("id").where("n", ">=", bind("min")).orderBy("n").limit(bind("limit"));
          },
          { min, limit },
        );
      expect((await db.executeQuery(query(2, 5))).rows).toEqual([{ id: "b" }, { id: "c" }]);
      expect((await db.executeQuery(query(1, 1))).rows).toEqual([{ id: "a" }]);
      expect(builds).toBe(1);
      expect(() => compiledOnce("test t above", () => db.selectFrom("t").selectAll(), { min: 1 })).toThrow(
        "no value for limit",
      );
    } finally {
      await db.destroy();
    }
  });

  it("a claim on SQLite is built once and each claim takes its own rows", async () => {
    const statements: string[] = [];
    const db = new Kysely<any>({
      dialect: new SqliteDialect({ database: new Database(":memory:") }),
      log: (event) => void statements.push(event.query.sql),
    });
    try {
      await db.schema
        .createTable("jobs")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("next_attempt_at", "integer")
        .addColumn("attempts", "integer")
        .addColumn("lease_owner", "text")
        .addColumn("lease_until", "integer")
        .execute();
      await db
        .insertInto("jobs")
        .values(["a", "b", "c"].map((id, i) => ({ id, next_attempt_at: i, attempts: 0 })))
        .execute();
      const spec: JobTableSpec = { table: "jobs" };
      const first = await claimDueRowsIn<{ id: string; lease_owner: string }>(db, "sqlite", spec, 10, 2, 100, "w1");
      const second = await claimDueRowsIn<{ id: string; lease_owner: string }>(db, "sqlite", spec, 10, 2, 100, "w2");
      expect(first.map((r) => [r.id, r.lease_owner]).sort()).toEqual([
        ["a", "w1"],
        ["b", "w1"],
      ]);
      expect(second.map((r) => [r.id, r.lease_owner])).toEqual([["c", "w2"]]);
      const claims = statements.filter((s) => s.startsWith('update "jobs"'));
      expect(claims).toHaveLength(2);
      expect(claims[0]).toBe(claims[1]);
    } finally {
      await db.destroy();
    }
  });
});
