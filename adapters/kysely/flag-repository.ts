import type { Kysely, Selectable, Transaction, Updateable } from "kysely";
import { flagChanges } from "../../src/flags/history-diff.js";
import { checkDeletable, checkPrerequisites, type PrerequisiteGraph } from "../../src/flags/prerequisites.js";
import { uuidv7 } from "../../src/ids.js";
import type {
  FlagAudit,
  FlagChanges,
  FlagHistoryAction,
  FlagRecord,
  FlagRepository,
  DomainEvent,
  EventsFor,
} from "../../src/storage/index.js";
import { type Engine, encodeBoolean } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import { recordDomainEvents } from "./domain-events.js";
import type { StorageActions } from "./storage-errors.js";
import { recordFlagHistory } from "./flag-history-repository.js";
import { completeSchedule } from "./flag-schedule-repository.js";
import { toBoolean, toEpochMs, toIso, toNumber } from "./row-codec.js";
import { FLAGS_REVISION, type FlagpostTables, type FlagsTable } from "./tables.js";
import { inTransaction } from "./transaction.js";

type Db = Kysely<FlagpostTables>;
type Trx = Transaction<FlagpostTables>;

function toFlag(row: Selectable<FlagsTable>): FlagRecord {
  return {
    id: row.id,
    key: row.key,
    description: row.description,
    enabled: toBoolean(row.enabled),
    rules: JSON.parse(row.rules) as FlagRecord["rules"],
    variants: row.variants ? (JSON.parse(row.variants) as FlagRecord["variants"]) : [],
    prerequisites: row.prerequisites ? (JSON.parse(row.prerequisites) as FlagRecord["prerequisites"]) : [],
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

/** Stores the history entry of a write, when the caller asked for one, in the write's transaction. */
async function record(
  trx: Trx,
  flagKey: string,
  action: FlagHistoryAction,
  before: FlagRecord | undefined,
  after: FlagRecord | undefined,
  audit: FlagAudit | undefined,
): Promise<void> {
  if (!audit) return;
  await recordFlagHistory(trx, {
    id: uuidv7(),
    flagKey,
    action,
    at: audit.at,
    actor: audit.actor,
    changes: flagChanges(before, after),
  });
}

/** Bumps the revision counter inside the transaction of the flag write it reports. */
async function bumpRevision(trx: Trx): Promise<void> {
  await trx
    .updateTable("flagpost_meta")
    .set((eb) => ({ value: eb("value", "+", 1).$castTo<number>() }))
    .where("name", "=", FLAGS_REVISION)
    .execute();
}

/**
 * Every flag's prerequisite keys, read inside a write's transaction after its revision bump. The
 * bump holds the counter row's lock until commit, so no other flag write commits in between; and
 * the bump comes before the transaction's first plain read, so MySQL's REPEATABLE READ snapshot
 * (taken at that first read) already holds every write committed before it. PostgreSQL reads
 * committed data per statement; SQLite has one writer.
 */
async function prerequisiteGraph(trx: Trx): Promise<PrerequisiteGraph> {
  const rows = await trx
    .selectFrom("flagpost_flags")
    .select(["key", "prerequisites"])
    .where("prerequisites", "is not", null)
    .where("prerequisites", "<>", "[]")
    .execute();
  const graph = new Map<string, string[]>();
  for (const row of rows) {
    const keys = (JSON.parse(row.prerequisites!) as FlagRecord["prerequisites"]).map((p) => p.flagKey);
    if (keys.length > 0) graph.set(row.key, keys);
  }
  return graph;
}

/** Refuses (inside the transaction) prerequisites that name no flag, or make a cycle or too deep a chain. */
async function checkGraph(trx: Trx, key: string, prerequisites: FlagRecord["prerequisites"]): Promise<void> {
  if (prerequisites.length === 0) return;
  const graph = await prerequisiteGraph(trx);
  const named = [...new Set(prerequisites.map((p) => p.flagKey))];
  const found = await trx.selectFrom("flagpost_flags").select("key").where("key", "in", named).execute();
  const existing = new Set(found.map((row) => row.key));
  checkPrerequisites(key, prerequisites, graph, (flagKey) => existing.has(flagKey));
}

/**
 * Flags in `flagpost_flags`, keyed by `key` (byte-wise collation on every engine). Every write
 * bumps `flagpost_meta.flags_revision` in its own transaction, after locking or writing the flag
 * row, so all flag writers take their locks in the same order (flag row, then counter) and cannot
 * deadlock, and prerequisite checks after the bump see every other write (see prerequisiteGraph);
 * the history entry (flagpost_flag_history) is written last, in the same transaction.
 */
export class KyselyFlagRepository implements FlagRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyFlagRepository> = {
    insert: {
      action: "store the flag",
      conflict: (flag) => `A flag with key "${flag.key}" already exists`,
    },
    get: "read the flag",
    list: "list flags",
    update: "update the flag",
    delete: "delete the flag",
    revision: "read the flags revision",
  };

  readonly #db: Db;
  readonly #engine: Engine;

  constructor(db: Db, engine: Engine) {
    this.#db = db;
    this.#engine = engine;
  }

  async insert(flag: FlagRecord, audit?: FlagAudit, events?: readonly DomainEvent[]): Promise<void> {
    const row = {
      key: flag.key,
      id: flag.id,
      description: flag.description,
      enabled: encodeBoolean(this.#engine, flag.enabled),
      rules: JSON.stringify(flag.rules),
      variants: JSON.stringify(flag.variants ?? []),
      prerequisites: JSON.stringify(flag.prerequisites ?? []),
      created_at: toEpochMs(flag.createdAt, "createdAt"),
      updated_at: toEpochMs(flag.updatedAt, "updatedAt"),
    };
    await inTransaction(this.#db, this.#engine, async (trx) => {
      await trx.insertInto("flagpost_flags").values(row).execute();
      await bumpRevision(trx);
      await checkGraph(trx, flag.key, flag.prerequisites ?? []);
      await record(trx, flag.key, "created", undefined, flag, audit);
      await recordDomainEvents(trx, events);
    });
  }

  async get(key: string): Promise<FlagRecord | undefined> {
    const row = await this.#db.selectFrom("flagpost_flags").selectAll().where("key", "=", key).executeTakeFirst();
    return row && toFlag(row);
  }

  async list({ after, limit }: { after?: string; limit: number }): Promise<FlagRecord[]> {
    let query = this.#db.selectFrom("flagpost_flags").selectAll().orderBy("key").limit(limit);
    if (after !== undefined) query = query.where("key", ">", after);
    return (await query.execute()).map(toFlag);
  }

  async update(
    key: string,
    changes: FlagChanges,
    audit?: FlagAudit,
    events?: (stored: FlagRecord, before: FlagRecord) => readonly DomainEvent[],
  ): Promise<FlagRecord | undefined> {
    // Only the columns given are SET, so concurrent updates of different fields both survive.
    const set: Updateable<FlagsTable> = { updated_at: toEpochMs(changes.updatedAt, "updatedAt") };
    if (changes.description !== undefined) set.description = changes.description;
    if (changes.enabled !== undefined) set.enabled = encodeBoolean(this.#engine, changes.enabled);
    if (changes.rules !== undefined) set.rules = JSON.stringify(changes.rules);
    if (changes.variants !== undefined) set.variants = JSON.stringify(changes.variants);
    if (changes.prerequisites !== undefined) set.prerequisites = JSON.stringify(changes.prerequisites);
    return inTransaction(this.#db, this.#engine, async (trx) => {
      const before = await this.#lockedRead(trx, key);
      if (!before) return undefined;
      if (audit?.schedule) await completeSchedule(trx, audit.schedule, audit.at);
      await trx.updateTable("flagpost_flags").set(set).where("key", "=", key).execute();
      await bumpRevision(trx);
      if (changes.prerequisites !== undefined) await checkGraph(trx, key, changes.prerequisites);
      const row = await trx.selectFrom("flagpost_flags").selectAll().where("key", "=", key).executeTakeFirstOrThrow();
      const after = toFlag(row);
      const previous = toFlag(before);
      await record(trx, key, audit?.action ?? "updated", previous, after, audit);
      await recordDomainEvents(trx, events?.(after, previous));
      return after;
    });
  }

  /**
   * The row as it is before this transaction changes it, with the write lock on it taken first,
   * so the history's "before" is exactly what the write replaced. PostgreSQL and MySQL lock the
   * row (SELECT … FOR UPDATE); SQLite has no row locks and no FOR UPDATE, so a no-op UPDATE takes
   * the database's write lock first (reading first could not upgrade to writing once another
   * connection had written: SQLITE_BUSY_SNAPSHOT).
   */
  async #lockedRead(trx: Trx, key: string): Promise<Selectable<FlagsTable> | undefined> {
    if (engineTraits(this.#engine).oneWriter) {
      const touched = await trx
        .updateTable("flagpost_flags")
        .set((eb) => ({ key: eb.ref("key") }))
        .where("key", "=", key)
        .executeTakeFirst();
      if (touched.numUpdatedRows === 0n) return undefined;
      return trx.selectFrom("flagpost_flags").selectAll().where("key", "=", key).executeTakeFirst();
    }
    return trx.selectFrom("flagpost_flags").selectAll().where("key", "=", key).forUpdate().executeTakeFirst();
  }

  async delete(key: string, audit?: FlagAudit, events?: EventsFor<FlagRecord>): Promise<boolean> {
    return inTransaction(this.#db, this.#engine, async (trx) => {
      const before = await this.#lockedRead(trx, key);
      if (!before) return false;
      await bumpRevision(trx);
      checkDeletable(key, await prerequisiteGraph(trx));
      await trx.deleteFrom("flagpost_flags").where("key", "=", key).execute();
      await record(trx, key, "deleted", toFlag(before), undefined, audit);
      await recordDomainEvents(trx, events?.(toFlag(before)));
      return true;
    });
  }

  async revision(): Promise<number> {
    const row = await this.#db
      .selectFrom("flagpost_meta")
      .select("value")
      .where("name", "=", FLAGS_REVISION)
      .executeTakeFirst();
    return row ? toNumber(row.value) : 0;
  }
}
