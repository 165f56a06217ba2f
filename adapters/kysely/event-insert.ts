import { CompiledQuery, type Kysely, sql, type Transaction } from "kysely";
import type { Engine } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import type { FlagpostTables } from "./tables.js";
import { inTransaction } from "./transaction.js";

type Db = Kysely<FlagpostTables>;

/** One row of flagpost_events, as written: `id` as eventIdParam gives it (16 bytes, or text for PostgreSQL's uuid). */
export interface EventRow {
  id: string | Buffer;
  event: string;
  user_id: string;
  ts: number;
  received_at: number;
  properties: string;
}

const COLUMNS = ["id", "event", "user_id", "ts", "received_at", "properties"] as const;

export type InsertStrategy = "values" | "unnest" | "template";

/**
 * Rows per INSERT statement. SQLite binds at most 32,766 parameters per statement (3.32+) and
 * PostgreSQL 65,535; MySQL (mysql2 interpolates on the client) has no parameter limit but a packet
 * limit, which MAX_STATEMENT_CHARS covers.
 */
export const MAX_ROWS_PER_STATEMENT: Record<Engine, number> = {
  sqlite: Math.floor(32_766 / COLUMNS.length),
  postgres: Math.floor(65_535 / COLUMNS.length),
  mysql: 5_000,
};

/**
 * Text per statement, counted in characters of the row values: 4 Mi characters are at most 16 MiB
 * of UTF-8, MariaDB's default max_allowed_packet (MySQL 8's is 64 MiB). Keeps any engine's statement
 * at a sane size when properties are large (1,000 events of 32 KiB would otherwise be 32 MiB).
 */
export const MAX_STATEMENT_CHARS = 4 * 1024 * 1024;

/** Splits rows into statements that respect the engine's parameter and size limits. */
export function statementChunks(
  engine: Engine,
  rows: readonly EventRow[],
  maxRows = MAX_ROWS_PER_STATEMENT[engine],
): EventRow[][] {
  const chunks: EventRow[][] = [];
  let current: EventRow[] = [];
  let chars = 0;
  for (const row of rows) {
    const size = row.properties.length + row.event.length + row.user_id.length + 80;
    if (current.length > 0 && (current.length >= maxRows || chars + size > MAX_STATEMENT_CHARS)) {
      chunks.push(current);
      current = [];
      chars = 0;
    }
    current.push(row);
    chars += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Inserts every row, or none: one statement needs no explicit transaction (a statement is atomic on
 * every engine); several, or an `alsoInTransaction` step (an idempotency completion), run in one.
 */
export async function insertEventRows(
  db: Db,
  engine: Engine,
  rows: readonly EventRow[],
  alsoInTransaction?: (trx: Transaction<FlagpostTables>) => Promise<void>,
  {
    strategy = engineTraits(engine).eventInsert,
    maxRows = MAX_ROWS_PER_STATEMENT[engine],
  }: { strategy?: InsertStrategy; maxRows?: number } = {},
): Promise<void> {
  const chunks = statementChunks(engine, rows, maxRows);
  if (chunks.length === 1 && !alsoInTransaction) {
    await insertChunk(db, engine, chunks[0]!, strategy);
    return;
  }
  await inTransaction(db, engine, async (trx) => {
    for (const chunk of chunks) await insertChunk(trx, engine, chunk, strategy);
    if (alsoInTransaction) await alsoInTransaction(trx);
  });
}

async function insertChunk(db: Db, engine: Engine, rows: EventRow[], strategy: InsertStrategy): Promise<void> {
  switch (strategy) {
    case "values":
      await db
        .insertInto("flagpost_events")
        .values(rows.map((r) => ({ ...r, properties: engineTraits(engine).toJsonColumn(r.properties) })))
        .execute();
      return;
    case "unnest": {
      if (engineTraits(engine).eventInsert !== "unnest") throw new Error(`unnest is not for ${engine}`);
      await db
        .insertInto("flagpost_events")
        .columns([...COLUMNS])
        .expression(
          sql`select * from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.event)}::varchar[], ${rows.map((r) => r.user_id)}::varchar[], ${rows.map((r) => r.ts)}::bigint[], ${rows.map((r) => r.received_at)}::bigint[], ${rows.map((r) => r.properties)}::text[])`,
        )
        .execute();
      return;
    }
    case "template": {
      const params: unknown[] = new Array(rows.length * COLUMNS.length);
      let i = 0;
      for (const r of rows) {
        params[i++] = r.id;
        params[i++] = r.event;
        params[i++] = r.user_id;
        params[i++] = r.ts;
        params[i++] = r.received_at;
        params[i++] = r.properties;
      }
      await db.executeQuery(CompiledQuery.raw(insertTemplate(db, engine, rows.length), params));
      return;
    }
  }
}

const templates = new Map<string, string>();
const PLACEHOLDER_ROW: EventRow = { id: "", event: "", user_id: "", ts: 0, received_at: 0, properties: "" };

/**
 * The SQL of a multi-row INSERT of `count` rows, compiled by kysely once per (engine, count) and
 * reused with new parameters: compiling thousands of values on every batch costs more than the
 * engine takes to insert them. Parameters go row by row, in COLUMNS order, as kysely emits them.
 */
export function insertTemplate(db: Db, engine: Engine, count: number): string {
  const cacheKey = `${engine}:${count}`;
  let text = templates.get(cacheKey);
  if (text === undefined) {
    text = db
      .insertInto("flagpost_events")
      .values(
        Array.from({ length: count }, () => ({
          ...PLACEHOLDER_ROW,
          properties: engineTraits(engine).toJsonColumn(""),
        })),
      )
      .compile().sql;
    if (templates.size >= 32) templates.clear();
    templates.set(cacheKey, text);
  }
  return text;
}
