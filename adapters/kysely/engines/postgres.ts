import { sql } from "kysely";
import { codes } from "./driver-codes.js";
import type { EngineTraits } from "./engine-traits.js";
import { createIndexIfNotExists } from "./create-index.js";
import { onConflictUpserts } from "./on-conflict.js";
import { nameFirstEventName } from "./event-name.js";

export const postgresEngine: EngineTraits = {
  name: "postgres",
  displayName: "PostgreSQL",
  // COLLATE "C" compares bytes, whatever collation the database was created with.
  columns: {
    exactText: (length) => sql`varchar(${sql.raw(String(length))}) collate "C"`,
    text: sql`text`,
    longText: sql`text`,
    boolean: sql`boolean`,
    bigint: sql`bigint`,
    bytes: sql`bytea`,
    tableOptions: undefined,
  },
  oneWriter: false,
  updateReturning: true,
  nativeUuid: true,
  eventInsert: "unnest",
  limitInSubquery: true,
  listenNotify: true,
  fileDatabase: false,
  sharedRateLimits: true,
  schemas: true,
  toJsonColumn: (json) => json,
  fromJsonColumn: (column, alias) => sql<string>`${sql.ref(column)}`.as(alias),
  exactly: (eb, column, value) => eb(column, "=", value),
  eventName: nameFirstEventName,
  ...onConflictUpserts,
  greatest: sql.raw("greatest"),
  isUniqueViolation: (error) => codes(error).code === "23505",
  isTransientConflict: (error) => ["40P01", "40001"].includes(codes(error).code as string),
  createIndexIfAbsent: createIndexIfNotExists,
  resetIndexFill: async (db, index) => {
    await sql`alter index ${sql.id(index)} reset (fillfactor)`.execute(db);
  },
  packIndex: async (db, index) => {
    await sql`alter index ${sql.id(index)} set (fillfactor = 100)`.execute(db);
  },
  tableColumns: (table) =>
    sql`select column_name as name, data_type as type from information_schema.columns
      where table_schema = current_schema() and table_name = ${table}`,
  isDuplicateColumn: () => false,
  encodeBoolean: (value) => value,
  insertIfAbsent: (query) => query.onConflict((conflict) => conflict.doNothing()),
  // Without statistics yet (a young table) the planner ANDs the status index's whole run into the bitmap.
  notIndexed: <T>(column: string) => sql<T>`coalesce(${sql.ref(column)}, ${sql.ref(column)})`,
  lockRows: (query) => query.forUpdate(),
  claimRows: (query) => query.forUpdate().skipLocked(),
  relaxedCommit: (db, work) => work(db),
  // The commit waits for the server's flush as it is.
  syncedCommit: (db, work) => work(db),
  releaseSyncedCommits: async () => undefined,
  relaxTransaction: async (trx) => {
    await sql`SET LOCAL synchronous_commit = off`.execute(trx);
  },
};
