import { FlagpostError } from "../errors.js";
import type { PageRequest } from "../ports/storage/index.js";

/** A fresh copy: the port hands out records the caller may keep or change (src/ports/storage/index.ts). */
export const copy = <T>(value: T): T => structuredClone(value);

/** Ascending order of two ids, or of two instants. */
export const ascending = <T extends string | number>(a: T, b: T): number => (a < b ? -1 : a > b ? 1 : 0);

/** A row's place in an ordered table, compared element by element (strings by UTF-16 code unit). */
export type SortKey = readonly (string | number)[];

function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

/** A page of copies, newest first by `id(item)`, as the kysely adapter's pageQuery gives it. */
export function pageOf<T>(items: Iterable<T>, id: (item: T) => string, page: PageRequest): T[] {
  const { after, before, limit } = page;
  let selected = [...items].filter(
    (item) => (after === undefined || id(item) < after) && (before === undefined || id(item) > before),
  );
  selected.sort((a, b) => ascending(id(b), id(a)));
  if (before !== undefined && after === undefined) selected = selected.slice(Math.max(0, selected.length - limit));
  return selected.slice(0, limit).map(copy);
}

/**
 * A table in memory: a Map of rows by key. Rows stay inside (callers in src/memory change them in
 * place, with no await in between, so each write is atomic in this process); reads hand out copies.
 * With an `order` (its SQL twin's index), `scan` and `pageAfter` walk the rows in it: sorted on the
 * first scan after a write, re-sorting only the rows written since (a run of inserts costs one
 * sort of the run), and keyset pages start by binary search. A row changed in place must keep its
 * sort key.
 */
export class MemoryTable<T> extends Map<string, T> {
  /** Key, sort key and row, in order as of the last scan. */
  #ordered: [string, SortKey, T][] = [];
  /** Keys written or deleted since the last scan; "all" when none was yet or too many to track. */
  #stale: Set<string> | "all" = "all";

  constructor(
    readonly keyOf: (row: T) => string,
    readonly order?: { by: (row: T) => SortKey; descending?: boolean },
  ) {
    super();
  }

  override set(key: string, row: T): this {
    this.#touch(key);
    return super.set(key, row);
  }

  override delete(key: string): boolean {
    this.#touch(key);
    return super.delete(key);
  }

  #touch(key: string): void {
    if (this.order === undefined || this.#stale === "all") return;
    this.#stale.add(key);
    if (this.#stale.size > this.#ordered.length + this.size) this.#stale = "all";
  }

  /** A copy of the row with this key. */
  read(key: string): T | undefined {
    const row = this.get(key);
    return row && copy(row);
  }

  /** The stored rows that pass `test`, in insertion order. */
  *where(test: (row: T) => boolean): Iterable<T> {
    for (const row of this.values()) if (test(row)) yield row;
  }

  /** The first stored row that passes `test`. */
  find(test: (row: T) => boolean): T | undefined {
    for (const row of this.where(test)) return row;
    return undefined;
  }

  /** A copy of the first stored row that passes `test`. */
  readWhere(test: (row: T) => boolean): T | undefined {
    const row = this.find(test);
    return row && copy(row);
  }

  /** Removes every row `test` accepts; how many. */
  deleteWhere(test: (row: T) => boolean): number {
    const keys = [...this.entries()].filter(([, row]) => test(row)).map(([key]) => key);
    for (const key of keys) this.delete(key);
    return keys.length;
  }

  /** Stores copies of `rows`, all or none: a key stored already or twice → `FlagpostError("conflict", conflict(key))`. */
  insert(rows: readonly T[], conflict: (key: string) => string): void {
    const keys = new Set<string>();
    for (const key of rows.map(this.keyOf)) {
      if (keys.has(key) || this.has(key)) throw new FlagpostError("conflict", conflict(key));
      keys.add(key);
    }
    for (const row of rows) this.set(this.keyOf(row), copy(row));
  }

  /** A page of the rows that pass `test`, newest first by `id` (the key unless given). */
  page(page: PageRequest, test: (row: T) => boolean = () => true, id: (row: T) => string = this.keyOf): T[] {
    return pageOf(this.where(test), id, page);
  }

  /** The stored rows in the table's order, strictly after the sort key `after` when given. */
  *scan(after?: SortKey): Iterable<T> {
    const direction = this.order!.descending ? -1 : 1;
    const ordered = this.#sorted(direction);
    let [start, end] = [0, after === undefined ? 0 : ordered.length];
    while (start < end) {
      const middle = (start + end) >>> 1;
      if (direction * compareKeys(ordered[middle]![1], after!) <= 0) start = middle + 1;
      else end = middle;
    }
    for (let i = start; i < ordered.length; i++) yield ordered[i]![2];
  }

  /** The order brought up to date: the rows kept in place, the stale ones taken out or re-placed. */
  #sorted(direction: number): [string, SortKey, T][] {
    const { by } = this.order!;
    const stale = this.#stale;
    if (stale === "all") this.#ordered = [...this].map(([key, row]) => [key, by(row), row]);
    else if (stale.size === 0) return this.#ordered;
    else {
      this.#ordered = this.#ordered.filter(([key]) => !stale.has(key));
      for (const key of stale) {
        const row = this.get(key);
        if (row !== undefined) this.#ordered.push([key, by(row), row]);
      }
    }
    this.#stale = new Set();
    // Array#sort finds the sorted run kept in place: a few written rows cost little more than their own sort.
    return this.#ordered.sort(([, a], [, b]) => direction * compareKeys(a, b));
  }

  /** Copies of up to `limit` rows `where` accepts, in the table's order, strictly after the sort key `after`. */
  pageAfter(after: SortKey | undefined, limit: number, where: (row: T) => boolean = () => true): T[] {
    const page: T[] = [];
    for (const row of this.scan(after)) {
      if (page.length >= limit) break;
      if (where(row)) page.push(copy(row));
    }
    return page;
  }
}

/**
 * A table's rows as one memory transaction sees them: its writes kept aside (its reads see them)
 * until `commit` applies them in one synchronous step. Memory transactions run one at a time.
 */
export class StagedTable<T> {
  /** By key: the row to store, or null to delete it. */
  readonly #written = new Map<string, T | null>();

  constructor(readonly table: MemoryTable<T>) {}

  /** The row as this transaction sees it (not a copy). */
  get(key: string): T | undefined {
    return this.#written.has(key) ? (this.#written.get(key) ?? undefined) : this.table.get(key);
  }

  /** Every row as this transaction sees it. */
  *rows(): Iterable<T> {
    for (const key of new Set([...this.table.keys(), ...this.#written.keys()])) {
      const row = this.get(key);
      if (row) yield row;
    }
  }

  set(key: string, row: T | null): void {
    this.#written.set(key, row && copy(row));
  }

  /** A copy of the row as this transaction sees it: a row store's `lock`, as memory transactions run one at a time. */
  async lock(key: string): Promise<T | undefined> {
    const row = this.get(key);
    return row && copy(row);
  }

  /** Stores `row` under its key: a row store's `replace`. */
  async replace(row: T): Promise<void> {
    this.set(this.table.keyOf(row), row);
  }

  /**
   * Applies the writes. With `replaceOnly`, a row deleted outside the transaction meanwhile stays
   * deleted, as it would after waiting for the transaction's row lock in a database. How many writes.
   */
  commit(replaceOnly = false): number {
    for (const [key, row] of this.#written) {
      if (row === null) this.table.delete(key);
      else if (!replaceOnly || this.table.has(key)) this.table.set(key, row);
    }
    return this.#written.size;
  }
}
