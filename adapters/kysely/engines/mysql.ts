import { sql } from "kysely";
import { codes } from "./driver-codes.js";
import type { EngineTraits } from "./engine-traits.js";
import { plainEventName } from "./event-name.js";

export const mysqlEngine: EngineTraits = {
  name: "mysql",
  displayName: "MySQL",
  // utf8mb4_bin orders by code point and is case-sensitive; the table default makes every text
  // column utf8mb4 even on a server whose default character set is latin1.
  columns: {
    exactText: (length) => sql`varchar(${sql.raw(String(length))}) character set utf8mb4 collate utf8mb4_bin`,
    text: sql`text`,
    longText: sql`longtext`,
    boolean: sql`boolean`,
    bigint: sql`bigint`,
    bytes: sql`mediumblob`,
    tableOptions: sql`engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
  },
  oneWriter: false,
  updateReturning: false,
  nativeUuid: false,
  eventInsert: "template",
  limitInSubquery: false,
  listenNotify: false,
  fileDatabase: false,
  sharedRateLimits: false,
  schemas: false,
  toJsonColumn: (json) => json,
  fromJsonColumn: (column, alias) => sql<string>`${sql.ref(column)}`.as(alias),
  // utf8mb4_bin is PAD SPACE ('a' = 'a '): the byte lengths must match too.
  exactly: (eb, column, value) =>
    eb.and([eb(column, "=", value), eb(eb.fn("octet_length", [column]), "=", Buffer.byteLength(value, "utf8"))]),
  eventName: plainEventName,
  upsert: (query, _keys, set) => query.onDuplicateKeyUpdate(set as never),
  skipDuplicateId: (table) => sql`on duplicate key update ${sql.id(table, "id")} = ${sql.id(table, "id")}`,
  incoming: (column) => sql`values(${sql.ref(column)})`,
  greatest: sql.raw("greatest"),
  isUniqueViolation: (error) => {
    const { code, errno } = codes(error);
    return code === "ER_DUP_ENTRY" || errno === 1062 || errno === 1586;
  },
  isTransientConflict: (error) => {
    const { code, errno } = codes(error);
    return code === "ER_LOCK_DEADLOCK" || errno === 1213;
  },
  createIndexIfAbsent: async (db, name, table, columns) => {
    try {
      await db.schema
        .createIndex(name)
        .on(table)
        .columns([...columns])
        .execute();
    } catch (error) {
      // ER_DUP_KEYNAME: the index exists already.
      const { code, errno } = codes(error);
      if (!(code === "ER_DUP_KEYNAME" || errno === 1061)) throw error;
    }
  },
  // InnoDB's page fill (innodb_fill_factor) is server-wide: there is no per-index setting to reset.
  resetIndexFill: async () => undefined,
  packIndex: async () => undefined,
  tableColumns: (table) =>
    sql`select column_name as name, data_type as type from information_schema.columns
      where table_schema = database() and table_name = ${table}`,
  isDuplicateColumn: (error) => {
    const { code, errno } = codes(error);
    return code === "ER_DUP_FIELDNAME" || errno === 1060;
  },
  encodeBoolean: (value) => value,
  insertIfAbsent: (query) => query.ignore(),
  notIndexed: <T>(column: string) => sql<T>`${sql.ref(column)}`,
  lockRows: (query) => query.forUpdate(),
  claimRows: (query) => query.forUpdate().skipLocked(),
  // InnoDB's flush policy is server-wide (innodb_flush_log_at_trx_commit): commits keep it.
  relaxedCommit: (db, work) => work(db),
  // The commit waits for the server's flush as it is.
  syncedCommit: (db, work) => work(db),
  releaseSyncedCommits: async () => undefined,
  relaxTransaction: async () => undefined,
};
