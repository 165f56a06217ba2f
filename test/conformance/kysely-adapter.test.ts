import {
  CamelCasePlugin,
  DialectAdapterBase,
  DummyDriver,
  Kysely,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { flagWrites } from "../../src/flags/store/index.js";
import { FlagpostError } from "../../src/errors.js";
import type { FlagRecord } from "../../src/ports/storage/flags.js";
import { createTestDatabase, createTestStorage, describeIfBackend, type TestDatabase } from "../support/databases.js";

/** What kyselyStorage promises beyond the port: ownership of the instance, dialects, error shapes. */

const AT = "2026-01-01T00:00:00.000Z";
const flag = (key: string, overrides: Partial<FlagRecord> = {}): FlagRecord => ({
  id: `id-${key}`,
  key,
  description: "",
  enabled: false,
  rules: [],
  variants: [],
  prerequisites: [],
  createdAt: Date.parse(AT),
  updatedAt: Date.parse(AT),
  ...overrides,
});

describe("kyselyStorage on SQLite", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    await kyselyStorage(database.db).migrate();
  });
  afterAll(async () => database.drop());

  it("leaves the caller's instance open on close()", async () => {
    const storage = kyselyStorage(database.db);
    await storage.close();
    await storage.close();
    await expect(sql`select 1`.execute(database.db)).resolves.toBeDefined();
  });

  it("destroys the instance on close() when destroyOnClose is set", async () => {
    const db = database.open();
    const storage = kyselyStorage(db, { destroyOnClose: true });
    await storage.flags.get("anything");
    await storage.close();
    await storage.close();
    await expect(sql`select 1`.execute(db)).rejects.toThrow(/destroyed/);
  });

  it("ignores the instance's plugins, which would rename its columns", async () => {
    await database.clear();
    const storage = kyselyStorage(database.db.withPlugin(new CamelCasePlugin()));
    await flagWrites(storage).insert(flag("camel", { enabled: true }));
    expect(await storage.flags.get("camel")).toEqual(flag("camel", { enabled: true }));
  });

  it("refuses a time it could not return unchanged (not a whole millisecond), and stores nothing", async () => {
    await database.clear();
    const storage = kyselyStorage(database.db);
    for (const createdAt of [Number.NaN, Number.POSITIVE_INFINITY, 1.5]) {
      const error = await flagWrites(storage)
        .insert(flag("odd", { createdAt }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlagpostError);
      expect((error as FlagpostError).code).toBe("validation_error");
      expect((error as FlagpostError).details?.[0]?.path).toBe("createdAt");
    }
    expect(await storage.flags.get("odd")).toBeUndefined();
  });

  it("refuses an event id it could not store as 16 bytes and return unchanged, and stores nothing", async () => {
    await database.clear();
    const storage = kyselyStorage(database.db);
    const good = {
      event: "e",
      userId: "u",
      timestamp: Date.parse(AT),
      receivedAt: Date.parse(AT),
      propertiesJson: "{}",
    };
    for (const id of ["0190AAAA-0000-7000-8000-000000000001", "0190aaaa00007000800000000000000001", "evt_1"]) {
      const error = await storage.events
        .appendEvents([
          { ...good, id: "0190aaaa-0000-7000-8000-000000000002" },
          { ...good, id },
        ])
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "validation_error", details: [{ path: "id" }] });
    }
    expect(await storage.events.queryEvents({}, undefined, 10)).toEqual([]);
  });

  it("reports a driver failure as unavailable, with the driver's code but no SQL", async () => {
    const broken = await createTestDatabase("sqlite"); // unmigrated: no tables
    const storage = kyselyStorage(broken.db);
    try {
      const error = (await storage.apiKeys.list().catch((e: unknown) => e)) as FlagpostError;
      expect(error).toBeInstanceOf(FlagpostError);
      expect(error.code).toBe("unavailable");
      expect(error.message).toBe("The SQLite database could not list API keys (SQLITE_ERROR)");
      expect(String((error.cause as Error).message)).toMatch(/no such table/);
    } finally {
      await broken.drop();
    }
  });
});

describe("kyselyStorage dialect detection", () => {
  it("refuses an instance whose dialect it does not know", () => {
    class OtherAdapter extends DialectAdapterBase {
      override get supportsReturning() {
        return false;
      }
      async acquireMigrationLock() {}
      async releaseMigrationLock() {}
    }
    const db = new Kysely<any>({
      dialect: {
        createAdapter: () => new OtherAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (instance) => new SqliteIntrospector(instance),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
    });
    expect(() => kyselyStorage(db)).toThrow(
      /supports the SQLite, PostgreSQL and MySQL dialects; this Kysely instance uses OtherAdapter/,
    );
  });
});

// The test database's own collation may already be byte-wise (C.UTF-8), in which case the
// conformance ordering cases pass with or without the column collation: check it directly.
describeIfBackend("postgres", "kyselyStorage schema on PostgreSQL", () => {
  it('gives flag keys and other identifiers the byte-wise "C" collation', async () => {
    const { database } = await createTestStorage("postgres");
    try {
      const { rows } = await sql<{ table_name: string; column_name: string; collation_name: string | null }>`
        select table_name, column_name, collation_name from information_schema.columns
        where table_schema = current_schema() and table_name like 'flagpost%' and data_type = 'character varying'
          and table_name not like 'flagpost_migration%'`.execute(database.db);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((r) => r.collation_name !== "C")).toEqual([]);
      expect(rows).toContainEqual({ table_name: "flagpost_flags", column_name: "key", collation_name: "C" });
    } finally {
      await database.drop();
    }
  });
});
