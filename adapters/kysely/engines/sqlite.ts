import { sql } from "kysely";
import { codes } from "./driver-codes.js";
import type { EngineTraits } from "./engine-traits.js";
import { plainEventName } from "./event-name.js";
import { withSqliteNormalSync, withSqliteSyncedWal } from "./sqlite-synchronous.js";
import { releaseWalSyncs } from "./sqlite-wal-sync.js";
import { createIndexIfNotExists } from "./create-index.js";
import { onConflictUpserts } from "./on-conflict.js";

export const sqliteEngine: EngineTraits = {
  name: "sqlite",
  displayName: "SQLite",
  // SQLite compares text with the BINARY collation by default: memcmp over UTF-8 = code-point order.
  columns: {
    exactText: () => sql`text`,
    text: sql`text`,
    longText: sql`text`,
    boolean: sql`integer`,
    bigint: sql`integer`,
    bytes: sql`blob`,
    tableOptions: undefined,
  },
  oneWriter: true,
  updateReturning: true,
  nativeUuid: false,
  eventInsert: "template",
  limitInSubquery: true,
  listenNotify: false,
  fileDatabase: true,
  sharedRateLimits: false,
  schemas: false,
  // Event properties are JSONB (migration 0017): the text goes in through jsonb(), out through json().
  toJsonColumn: (json) => sql<string>`jsonb(${json})`,
  fromJsonColumn: (column, alias) => sql<string>`json(${sql.ref(column)})`.as(alias),
  exactly: (eb, column, value) => eb(column, "=", value),
  eventName: plainEventName,
  ...onConflictUpserts,
  greatest: sql.raw("max"),
  isUniqueViolation: (error) =>
    ["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"].includes(codes(error).code as string),
  // One connection per instance; another process's lock is waited for by busy_timeout.
  isTransientConflict: () => false,
  createIndexIfAbsent: createIndexIfNotExists,
  // VACUUM packs SQLite's pages full; a split is never told how full to leave them.
  resetIndexFill: async () => undefined,
  packIndex: async () => undefined,
  tableColumns: (table) => sql`select name, type from pragma_table_info(${table})`,
  isDuplicateColumn: () => false,
  encodeBoolean: (value) => (value ? 1 : 0),
  insertIfAbsent: (query) => query.onConflict((conflict) => conflict.doNothing()),
  // Unary + is a no-op on any value that takes the term off the column's index.
  notIndexed: <T>(column: string) => sql<T>`+${sql.ref(column)}`,
  // One writer at a time (BEGIN IMMEDIATE): a transaction's reads are already exclusive.
  lockRows: (query) => query,
  claimRows: (query) => query,
  relaxedCommit: withSqliteNormalSync,
  syncedCommit: withSqliteSyncedWal,
  releaseSyncedCommits: releaseWalSyncs,
  relaxTransaction: async () => undefined,
};
