import { FlagpostError } from "../../src/errors.js";
import { exponential, retrying } from "../../src/jobs/index.js";
import { insertIfAbsent } from "./dialect.js";
import { isTransientConflict } from "./driver-errors.js";
import { toNumber } from "./row-codec.js";
import { EngineRepository } from "./engine-repository.js";

/** The most names the dictionary holds: its id is a SMALLINT (migration 0022-event-names). */
export const MAX_EVENT_NAMES = 32_767;
/** Names per statement when reading or adding many (far below every engine's parameter limit). */
const NAMES_PER_STATEMENT = 500;
/** A deadlock between two processes adding names (InnoDB's unique-index locks) is retried. */
const ATTEMPTS = 4;
const BACKOFF = exponential(10, 40);

/**
 * The event-name dictionary (`flagpost_event_names`) with an in-process cache in both directions.
 * A name's id never changes once assigned and names are never deleted, so a cached pair stays true
 * for the life of the database; a name that is not there is never cached (another process may add
 * it at any time). Adding is safe when several processes add the same new name at once: each
 * inserts it if absent, then reads the one id the database kept.
 */
export class EventNames extends EngineRepository {
  readonly #ids = new Map<string, number>();
  readonly #names = new Map<number, string>();

  /** The id of `name` if this process has seen it; no I/O. */
  cachedId(name: string): number | undefined {
    return this.#ids.get(name);
  }

  /** The name of `id`, once `loadIds` (or an add or lookup) has seen it; no I/O. */
  cachedName(id: number): string | undefined {
    return this.#names.get(id);
  }

  /** Makes every name of `names` known, adding to the dictionary those it lacks. Duplicates are fine. */
  async add(names: readonly string[]): Promise<void> {
    const wanted = [...new Set(names.filter((name) => !this.#ids.has(name)))];
    if (wanted.length === 0) return;
    // A restarted process usually finds its names there: reading first spends no ids on them
    // (PostgreSQL's identity and MySQL's AUTO_INCREMENT use one up even for a skipped insert).
    await this.#read(wanted);
    // Sorted, so two processes adding overlapping sets take the unique index's locks in one order.
    const absent = wanted.filter((name) => !this.#ids.has(name)).sort();
    if (absent.length === 0) return;
    for (let at = 0; at < absent.length; at += NAMES_PER_STATEMENT) {
      const chunk = absent.slice(at, at + NAMES_PER_STATEMENT).map((name) => ({ name }));
      await retrying(() => this.#insertIfAbsent(chunk), {
        attempts: ATTEMPTS,
        backoff: BACKOFF,
        retryOn: (error) => isTransientConflict(this.engine, error),
      });
    }
    await this.#read(absent);
    // MySQL's INSERT IGNORE skips a row it cannot number (a full dictionary) instead of failing.
    if (absent.some((name) => !this.#ids.has(name))) {
      if (await this.#full()) throw tooManyNames();
      throw new Error("an event name was neither added to flagpost_event_names nor found there");
    }
  }

  /** The id of `name`, read from the dictionary when not cached; undefined when no event ever had it. Never adds. */
  async lookup(name: string): Promise<number | undefined> {
    const cached = this.#ids.get(name);
    if (cached !== undefined) return cached;
    await this.#read([name]);
    return this.#ids.get(name);
  }

  /** Makes the names of these ids known (ids other processes added since this one last read). */
  async loadIds(ids: readonly number[]): Promise<void> {
    await this.#readBy("id", [...new Set(ids.filter((id) => !this.#names.has(id)))]);
  }

  async #read(names: readonly string[]): Promise<void> {
    await this.#readBy("name", names);
  }

  /**
   * Caches the dictionary's rows whose `column` is one of `values`, a statement per chunk: ids
   * for the id column, names for the name column (hence the cast kysely cannot follow).
   */
  async #readBy(column: "id" | "name", values: readonly number[] | readonly string[]): Promise<void> {
    for (let at = 0; at < values.length; at += NAMES_PER_STATEMENT) {
      const rows = await this.db
        .selectFrom("flagpost_event_names")
        .select(["id", "name"])
        .where(column, "in", values.slice(at, at + NAMES_PER_STATEMENT) as never)
        .execute();
      for (const row of rows) this.#remember(row.name, row.id);
    }
  }

  async #insertIfAbsent(rows: { name: string }[]): Promise<void> {
    try {
      await insertIfAbsent(this.engine, this.db.insertInto("flagpost_event_names").values(rows)).execute();
    } catch (error) {
      if (!(await this.#full())) throw error;
      throw tooManyNames(error);
    }
  }

  async #full(): Promise<boolean> {
    const row = await this.db
      .selectFrom("flagpost_event_names")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirst()
      .catch(() => undefined);
    return row !== undefined && toNumber(row.n as number | string | bigint) >= MAX_EVENT_NAMES;
  }

  #remember(name: string | Uint8Array, id: number | string | bigint): void {
    // MySQL keeps the name as its UTF-8 bytes (VARBINARY: every byte compared).
    const text = typeof name === "string" ? name : Buffer.from(name).toString("utf8");
    const n = toNumber(id);
    this.#ids.set(text, n);
    this.#names.set(n, text);
  }
}

function tooManyNames(cause?: unknown): FlagpostError {
  const message = `flagpost stores at most ${MAX_EVENT_NAMES.toLocaleString("en")} distinct event names, and this database holds that many already`;
  return new FlagpostError("validation_error", message, { details: [{ path: "event", message }], cause });
}
