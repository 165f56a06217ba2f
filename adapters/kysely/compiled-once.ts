import type { Compilable, CompiledQuery } from "kysely";
import type { AnyKysely, Engine } from "./dialect.js";

/** Stands for a value while a query's shape is compiled: the compiled parameters are matched against it. */
class Slot {
  constructor(readonly name: string) {}
}

/** A named placeholder for a value, typed as whatever the builder expects there. */
export type Bind = (name: string) => never;

/** Shapes kept: each distinct statement text of the hot paths (a few per IN-list length). */
const MAX_SHAPES = 500;

/**
 * Kysely builds a query's operation tree and compiles it to SQL on every call: for the outbox's
 * claim (a subquery, a dozen returned columns) that is about as much CPU as SQLite spends running
 * it. `compiledOnce` builds a shape once, with named slots where the values go (`bind("owner")`),
 * keeps the compiled text and parameter list, and afterwards only puts new values in the slots.
 * A shape's key must name everything that changes the text: the engine, the statement, and the
 * length of any IN list. Only values may be bound: a slot must land in the parameter list (as
 * where-values, set-values, LIMIT and sql`${…}` do), never in SQL text. The storage's Kysely has
 * no plugins (kysely-storage.ts), so the text depends on the engine alone.
 */
export function compiledOnce(
  key: string,
  build: (bind: Bind) => Compilable,
  values: Readonly<Record<string, unknown>>,
): CompiledQuery {
  const compiled = compiledShape(key, () => {
    const slots = new Map<string, Slot>();
    return build((name: string) => {
      let slot = slots.get(name);
      if (slot === undefined) slots.set(name, (slot = new Slot(name)));
      return slot as never;
    });
  });
  const parameters = compiled.parameters.map((parameter) => {
    if (!(parameter instanceof Slot)) return parameter;
    if (!(parameter.name in values)) throw new Error(`compiledOnce(${key}): no value for ${parameter.name}`);
    return values[parameter.name];
  });
  return { ...compiled, parameters };
}

/** The compiled shape kept under `key`, built and compiled on first use. */
function compiledShape(key: string, build: () => Compilable): CompiledQuery {
  let compiled = shapes.get(key);
  if (compiled === undefined) {
    compiled = build().compile();
    if (shapes.size >= MAX_SHAPES) shapes.delete(shapes.keys().next().value!);
    shapes.set(key, compiled);
  }
  return compiled;
}

const shapes = new Map<string, CompiledQuery>();

/**
 * A part of a statement (returned columns, say) that can go into a compiled-once shape: `key`
 * names it in the shape's key, `build` makes it with slots, `values` fills them.
 */
export interface Bound<T> {
  key: string;
  build(bind: Bind): T;
  values: Readonly<Record<string, unknown>>;
}

const objectKeys = new WeakMap<object, string>();
let objectCount = 0;

/** A name for an object in shape keys (a table spec, two of which may share a table): its identity. */
export function objectKey(object: object): string {
  let key = objectKeys.get(object);
  if (key === undefined) objectKeys.set(object, (key = `#${++objectCount}`));
  return key;
}

/**
 * A multi-row INSERT of plain values whose text is kept per table, columns and row count: the
 * hot inserts (an accepted group of emails and their first events, a worker's outcome events).
 * Every row has the columns of the first.
 */
export async function insertRows(
  db: AnyKysely,
  engine: Engine,
  table: string,
  rows: readonly Readonly<Record<string, unknown>>[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const compiled = compiledShape(`${engine} insert ${table} ${columns.join(",")} ${rows.length}`, () =>
    db.insertInto(table).values(rows.map((_, i) => Object.fromEntries(columns.map((c) => [c, new Cell(i, c)])))),
  );
  // Each value read straight from its row: no map of named values built per call (a group of
  // emails has a few hundred).
  const parameters = compiled.parameters.map((parameter) =>
    parameter instanceof Cell ? rows[parameter.row]![parameter.column] : parameter,
  );
  await db.executeQuery({ ...compiled, parameters });
}

/** Stands for the value of `column` in row `row` while a multi-row INSERT's shape is compiled. */
class Cell {
  constructor(
    readonly row: number,
    readonly column: string,
  ) {}
}
