import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { openDatabase, parseDatabaseUrl } from "../../cli/open-database.js";
import { FlagpostError } from "../../src/errors.js";
import { backendUrl, describeIfBackend } from "../support/databases.js";

describe("parseDatabaseUrl", () => {
  it.each([
    ["", { engine: "sqlite", path: "./flagpost.db" }],
    ["data/flags.db", { engine: "sqlite", path: "data/flags.db" }],
    ["/var/lib/flagpost.db", { engine: "sqlite", path: "/var/lib/flagpost.db" }],
    [":memory:", { engine: "sqlite", path: ":memory:" }],
    ["postgres://u:p@db:5432/app", { engine: "postgres", url: "postgres://u:p@db:5432/app" }],
    ["postgresql://db/app?sslmode=require", { engine: "postgres", url: "postgresql://db/app?sslmode=require" }],
    ["mysql://root@db/app", { engine: "mysql", url: "mysql://root@db/app" }],
    ["MariaDB://root@db/app", { engine: "mysql", url: "mysql://root@db/app" }],
  ])("reads %j", (value, expected) => {
    expect(parseDatabaseUrl(value)).toEqual(expected);
  });

  it("refuses another scheme, naming the scheme but not the rest of the URL", () => {
    const error = (() => {
      try {
        return parseDatabaseUrl("redis://user:secret@host/0");
      } catch (e) {
        return e;
      }
    })() as FlagpostError;
    expect(error).toBeInstanceOf(FlagpostError);
    expect(error.code).toBe("validation_error");
    expect(error.message).toMatch(/"redis:\/\/" is not supported/);
    expect(error.message).not.toMatch(/secret/);
  });
});

describe("openDatabase", () => {
  let db: Kysely<any> | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await db?.destroy();
    db = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("opens a SQLite file in WAL mode with a busy timeout, ready for kyselyStorage", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-cli-"));
    db = await openDatabase(join(dir, "flagpost.db"));
    const pragma = async (name: string) =>
      Object.values((await sql.raw(`pragma ${name}`).execute(db!)).rows[0] as object)[0];
    expect(await pragma("journal_mode")).toBe("wal");
    expect(await pragma("busy_timeout")).toBe(5000);
    expect(await pragma("synchronous")).toBe(2); // FULL
    const storage = kyselyStorage(db);
    await storage.migrate();
    expect(storage.name).toBe("sqlite");
    expect(await storage.flags.revision()).toBe(0);
  });

  it("opens an in-memory SQLite database", async () => {
    db = await openDatabase(":memory:");
    await kyselyStorage(db).migrate();
    expect(await kyselyStorage(db).flags.list({ limit: 1 })).toEqual([]);
  });

  it("says what is wrong when the SQLite file cannot be opened", async () => {
    const error = (await openDatabase("/nonexistent-dir/for/sure/flagpost.db").catch(
      (e: unknown) => e,
    )) as FlagpostError;
    expect(error).toBeInstanceOf(FlagpostError);
    expect(error.message).toMatch(/^Cannot open the SQLite database at \/nonexistent-dir/);
  });

  describeIfBackend("postgres", "openDatabase on PostgreSQL", () => {
    it("connects to a postgres:// URL", async () => {
      db = await openDatabase(backendUrl("postgres")!);
      expect(kyselyStorage(db).name).toBe("postgres");
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    });
  });

  describeIfBackend("mysql", "openDatabase on MySQL/MariaDB", () => {
    it("connects to a mariadb:// URL", async () => {
      db = await openDatabase(backendUrl("mysql")!.replace(/^mysql:/, "mariadb:"));
      expect(kyselyStorage(db).name).toBe("mysql");
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    });
  });
});
