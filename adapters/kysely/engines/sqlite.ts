import { sql } from "kysely";
import type { EngineTraits } from "./engine-traits.js";
import { withSqliteNormalSync } from "./sqlite-synchronous.js";

export const sqliteEngine: EngineTraits = {
  name: "sqlite",
  // SQLite compares text with the BINARY collation by default: memcmp over UTF-8 = code-point order.
  columns: {
    exactText: () => sql`text`,
    text: sql`text`,
    longText: sql`text`,
    boolean: sql`integer`,
    bigint: sql`integer`,
    tableOptions: undefined,
  },
  oneWriter: true,
  updateReturning: true,
  encodeBoolean: (value) => (value ? 1 : 0),
  insertIfAbsent: (query) => query.onConflict((conflict) => conflict.doNothing()),
  // One writer at a time (BEGIN IMMEDIATE): a transaction's reads are already exclusive.
  lockRows: (query) => query,
  claimRows: (query) => query,
  relaxedCommit: withSqliteNormalSync,
  relaxTransaction: async () => undefined,
};
