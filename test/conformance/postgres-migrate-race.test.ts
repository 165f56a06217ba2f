import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { backendUrl, createTestDatabase, describeIfBackend } from "../support/databases.js";

/**
 * Other clients of the same PostgreSQL database create and drop schemas of their own (tenants,
 * other test runs). kysely's migrator scans every schema's privileges while looking for its own
 * tables, and a schema dropped under that scan used to fail migrate() with 3F000 naming the
 * other schema (a CI run failed so). migrate() must not care what happens to other schemas.
 */
describeIfBackend("postgres", "migrate() on PostgreSQL while other schemas come and go", () => {
  describe("with another client dropping schemas all along", () => {
    it("migrates every fresh schema", async () => {
      const churn = new pg.Pool({ connectionString: backendUrl("postgres"), max: 2 });
      let running = true;
      let dropped = 0;
      const churnLoop = async () => {
        while (running) {
          const name = `flagpost_churn_${randomBytes(6).toString("hex")}`;
          // A table in it: kysely's scan reaches a schema through its tables' rows.
          await churn.query(`create schema "${name}"; create table "${name}".t (a int, b text)`);
          await churn.query(`drop schema "${name}" cascade`);
          dropped += 1;
        }
      };
      const churning = [churnLoop(), churnLoop()];
      const failures: string[] = [];
      try {
        for (let round = 0; round < 12; round += 1) {
          const database = await createTestDatabase("postgres");
          try {
            await kyselyStorage(database.db).migrate();
          } catch (error) {
            failures.push(String((error as { cause?: unknown }).cause ?? error));
          } finally {
            await database.drop();
          }
        }
      } finally {
        running = false;
        await Promise.allSettled(churning);
        await churn.end();
      }
      expect(dropped).toBeGreaterThan(0);
      expect(failures).toEqual([]);
    }, 120_000);
  });
});
