import { CompiledQuery, type Transaction } from "kysely";
import type { Engine } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import type { FlagpostTables } from "./tables.js";
import { inTransaction } from "./transaction.js";
import type { Db } from "./tables.js";

/**
 * The rows of flagpost_events to write, as one flat list of values: COLUMNS.length per row, in
 * COLUMNS order (migration 0022-event-names). `id` as the statement takes it (ID_FORM);
 * `received_at` NULL when the id carries that time; `properties` the JSON text, NULL for an empty
 * object. Flat because it is what a multi-row INSERT binds: a batch that fits one statement is
 * bound as it is, with no object per row and no copy.
 */
export type EventRowValues = unknown[];

/**
 * How the insert takes an event id. PostgreSQL's uuid column takes the checked text
 * (checkedEventId). SQLite takes the 16 bytes as views on one allocation per batch (better-sqlite3
 * binds any Uint8Array as a blob): a Buffer per event costs node's pool more, and letting SQLite
 * decode the text (`unhex`) costs the engine about 0.5 µs per row more than a blob. MySQL's
 * statement is interpolated on the client by mysql2, which writes only a Buffer as a hex literal:
 * a Buffer per event (eventIdParam).
 */
export const ID_FORM: Record<Engine, "text" | "views" | "buffers"> = {
  sqlite: "views",
  postgres: "text",
  mysql: "buffers",
};

/** The table's columns, in its order: the order every statement below binds them in. */
const COLUMNS = ["id", "ts", "received_at", "name_id", "user_id", "properties"] as const;
/** Values per row in EventRowValues, and where a row's name id sits among them. */
export const WIDTH = COLUMNS.length;
export const NAME_ID = COLUMNS.indexOf("name_id");
const USER_ID = COLUMNS.indexOf("user_id");
const PROPERTIES = COLUMNS.indexOf("properties");

/**
 * PostgreSQL's batch insert: six array parameters whatever the row count, one constant text, so
 * neither kysely nor the server has anything new to parse per batch.
 */
const UNNEST_SQL = `insert into "flagpost_events" (${COLUMNS.map((c) => `"${c}"`).join(", ")}) select * from unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::int2[], $5::varchar[], $6::text[])`;

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

/** Splits rows into statements that respect the engine's parameter and size limits: [first, end) row ranges. */
export function statementChunks(
  engine: Engine,
  values: EventRowValues,
  maxRows = MAX_ROWS_PER_STATEMENT[engine],
): [number, number][] {
  const rows = values.length / WIDTH;
  const chunks: [number, number][] = [];
  let first = 0;
  let chars = 0;
  for (let row = 0; row < rows; row++) {
    const properties = values[row * WIDTH + PROPERTIES] as string | null;
    const size = (properties?.length ?? 0) + (values[row * WIDTH + USER_ID] as string).length + 80;
    if (row > first && (row - first >= maxRows || chars + size > MAX_STATEMENT_CHARS)) {
      chunks.push([first, row]);
      first = row;
      chars = 0;
    }
    chars += size;
  }
  if (rows > first) chunks.push([first, rows]);
  return chunks;
}

/**
 * Inserts every row, or none: one statement needs no explicit transaction (a statement is atomic on
 * every engine); several, or an `alsoInTransaction` step (an idempotency completion), run in one.
 */
export async function insertEventRows(
  db: Db,
  engine: Engine,
  values: EventRowValues,
  alsoInTransaction?: (trx: Transaction<FlagpostTables>) => Promise<void>,
  {
    strategy = engineTraits(engine).eventInsert,
    maxRows = MAX_ROWS_PER_STATEMENT[engine],
  }: { strategy?: InsertStrategy; maxRows?: number } = {},
): Promise<void> {
  const chunks = statementChunks(engine, values, maxRows);
  const chunk = ([first, end]: [number, number]) =>
    first === 0 && end * WIDTH === values.length ? values : values.slice(first * WIDTH, end * WIDTH);
  if (chunks.length === 1 && !alsoInTransaction) {
    await insertChunk(db, engine, chunk(chunks[0]!), strategy);
    return;
  }
  await inTransaction(db, engine, async (trx) => {
    for (const range of chunks) await insertChunk(trx, engine, chunk(range), strategy);
    if (alsoInTransaction) await alsoInTransaction(trx);
  });
}

async function insertChunk(db: Db, engine: Engine, values: EventRowValues, strategy: InsertStrategy): Promise<void> {
  const rows = values.length / WIDTH;
  switch (strategy) {
    case "values": {
      const objects = Array.from({ length: rows }, (_, row) => {
        const at = row * WIDTH;
        const properties = values[at + PROPERTIES] as string | null;
        return {
          id: values[at] as string | Uint8Array,
          ts: values[at + 1] as number,
          received_at: values[at + 2] as number | null,
          name_id: values[at + 3] as number,
          user_id: values[at + USER_ID] as string,
          properties: properties === null ? null : engineTraits(engine).toJsonColumn(properties),
        };
      });
      await db.insertInto("flagpost_events").values(objects).execute();
      return;
    }
    case "unnest": {
      if (engineTraits(engine).eventInsert !== "unnest") throw new Error(`unnest is not for ${engine}`);
      const columns: unknown[][] = COLUMNS.map(() => new Array<unknown>(rows));
      for (let row = 0, at = 0; row < rows; row++)
        for (let column = 0; column < WIDTH; column++) columns[column]![row] = values[at++];
      await db.executeQuery(CompiledQuery.raw(UNNEST_SQL, columns));
      return;
    }
    case "template":
      await db.executeQuery(CompiledQuery.raw(insertTemplate(db, engine, rows), values));
      return;
  }
}

const templates = new Map<string, string>();
const PLACEHOLDER_ROW = { id: "", ts: 0, received_at: 0, name_id: 0, user_id: "", properties: "" };

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
