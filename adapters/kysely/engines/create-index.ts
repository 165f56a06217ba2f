import type { EngineTraits } from "./engine-traits.js";

/** CREATE INDEX IF NOT EXISTS, which SQLite and PostgreSQL have (MySQL has not: mysql.ts). */
export const createIndexIfNotExists: EngineTraits["createIndexIfAbsent"] = async (db, name, table, columns) => {
  await db.schema
    .createIndex(name)
    .ifNotExists()
    .on(table)
    .columns([...columns])
    .execute();
};
