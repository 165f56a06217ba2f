import { sql } from "kysely";
import type { EngineTraits } from "./engine-traits.js";

export const mysqlEngine: EngineTraits = {
  name: "mysql",
  // utf8mb4_bin orders by code point and is case-sensitive; the table default makes every text
  // column utf8mb4 even on a server whose default character set is latin1.
  columns: {
    exactText: (length) => sql`varchar(${sql.raw(String(length))}) character set utf8mb4 collate utf8mb4_bin`,
    text: sql`text`,
    longText: sql`longtext`,
    boolean: sql`boolean`,
    bigint: sql`bigint`,
    tableOptions: sql`engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
  },
  oneWriter: false,
  updateReturning: false,
  encodeBoolean: (value) => value,
  insertIfAbsent: (query) => query.ignore(),
  lockRows: (query) => query.forUpdate(),
  claimRows: (query) => query.forUpdate().skipLocked(),
  // InnoDB's flush policy is server-wide (innodb_flush_log_at_trx_commit): commits keep it.
  relaxedCommit: (db, work) => work(db),
  relaxTransaction: async () => undefined,
};
