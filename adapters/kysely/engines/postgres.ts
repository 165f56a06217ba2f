import { sql } from "kysely";
import type { EngineTraits } from "./engine-traits.js";

export const postgresEngine: EngineTraits = {
  name: "postgres",
  // COLLATE "C" compares bytes, whatever collation the database was created with.
  columns: {
    exactText: (length) => sql`varchar(${sql.raw(String(length))}) collate "C"`,
    text: sql`text`,
    longText: sql`text`,
    boolean: sql`boolean`,
    bigint: sql`bigint`,
    tableOptions: undefined,
  },
  oneWriter: false,
  updateReturning: true,
  encodeBoolean: (value) => value,
  insertIfAbsent: (query) => query.onConflict((conflict) => conflict.doNothing()),
  lockRows: (query) => query.forUpdate(),
  claimRows: (query) => query.forUpdate().skipLocked(),
  relaxedCommit: (db, work) => work(db),
  relaxTransaction: async (trx) => {
    await sql`SET LOCAL synchronous_commit = off`.execute(trx);
  },
};
