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
  let compiled = shapes.get(key);
  if (compiled === undefined) {
    const slots = new Map<string, Slot>();
    const bind = (name: string) => {
      let slot = slots.get(name);
      if (slot === undefined) slots.set(name, (slot = new Slot(name)));
      return slot as never;
    };
    compiled = build(bind).compile();
    if (shapes.size >= MAX_SHAPES) shapes.delete(shapes.keys().next().value!);
    shapes.set(key, compiled);
  }
  const parameters = compiled.parameters.map((parameter) => {
    if (!(parameter instanceof Slot)) return parameter;
    if (!(parameter.name in values)) throw new Error(`compiledOnce(${key}): no value for ${parameter.name}`);
    return values[parameter.name];
  });
  return { ...compiled, parameters };
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

/** The part built with its values in place, for a statement that is built per call. */
export function boundValues<T>(bound: Bound<T>): T {
  return bound.build(((name: string) => bound.values[name]) as Bind);
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
  const values: Record<string, unknown> = {};
  rows.forEach((row, i) => {
    for (const column of columns) values[`${i} ${column}`] = row[column];
  });
  const build = (bind: Bind) =>
    db.insertInto(table).values(rows.map((_, i) => Object.fromEntries(columns.map((c) => [c, bind(`${i} ${c}`)]))));
  await db.executeQuery(compiledOnce(`${engine} insert ${table} ${columns.join(",")} ${rows.length}`, build, values));
}
