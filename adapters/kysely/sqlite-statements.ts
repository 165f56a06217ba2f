import type { SqliteDatabase, SqliteStatement } from "kysely";

/** Statements kept per database: flagpost issues a few dozen distinct SQL texts. */
const DEFAULT_STATEMENT_CACHE_SIZE = 200;

/**
 * A SQLite database (better-sqlite3) for kysely's `SqliteDialect` that prepares each distinct SQL
 * text once and reuses the statement. kysely prepares every query anew; for flagpost's batch
 * insert of 1,000 events that parse alone costs about 1.5 µs per event, a tenth of the insert
 * (docs/storage.md, "SQLite"). Reuse is safe because kysely runs one query at a time on its one
 * SQLite connection, and better-sqlite3 re-prepares a statement itself after a schema change.
 * The least recently used statement is dropped once `size` are kept.
 */
export function withStatementCache(database: SqliteDatabase, size = DEFAULT_STATEMENT_CACHE_SIZE): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        if (statements.size >= size) statements.delete(statements.keys().next().value!);
      } else {
        // Map keeps insertion order: moving a hit to the end makes the first key the least recent.
        statements.delete(sql);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}
