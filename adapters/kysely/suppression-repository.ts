import type { Kysely, Selectable, Transaction } from "kysely";
import type {
  DomainEvent,
  PageRequest,
  SoftBounceRecord,
  SuppressionFilter,
  SuppressionOrigin,
  SuppressionRecord,
  SuppressionRepository,
} from "../../src/storage/index.js";
import { type Engine, insertIfAbsent } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import { recordDomainEvents } from "./domain-events.js";
import type { StorageActions } from "./storage-errors.js";
import { toEpochMs, toIso } from "./row-codec.js";
import type { FlagpostTables, SuppressionsTable } from "./tables.js";
import { inTransaction } from "./transaction.js";
import { pageQuery } from "./webhook-repository.js";

type Db = Kysely<FlagpostTables>;
type Trx = Transaction<FlagpostTables>;

/** Addresses per statement: far below every engine's limit on bound parameters. */
const CHUNK = 100;

function toSuppression(row: Selectable<SuppressionsTable>): SuppressionRecord {
  const record: SuppressionRecord = {
    id: row.id,
    email: row.email,
    origin: row.origin as SuppressionOrigin,
    createdAt: toIso(row.created_at),
  };
  if (row.source_id !== null) record.sourceId = row.source_id;
  if (row.reason !== null) record.reason = row.reason;
  if (row.bounce_type !== null) record.bounceType = row.bounce_type;
  if (row.diagnostic !== null) record.diagnostic = row.diagnostic;
  return record;
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * The suppression list in `flagpost_suppressions`, unique by lower-cased address. Adding is
 * insert-unless-present (ON CONFLICT DO NOTHING / INSERT IGNORE), so two writers adding one
 * address store it once; the rows are then read back with a locking read, which on MySQL sees a
 * row another transaction committed meanwhile (a plain read would see the transaction's snapshot).
 */
export class KyselySuppressionRepository implements SuppressionRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselySuppressionRepository> = {
    addSuppressions: "add to the suppression list",
    getSuppression: "read the suppression",
    listSuppressions: "list the suppressions",
    removeSuppressions: "remove from the suppression list",
    countSoftBounce: "count the soft bounces",
    suppressedAmong: "check the suppression list",
  };

  readonly #db: Db;
  readonly #engine: Engine;

  constructor(db: Db, engine: Engine) {
    this.#db = db;
    this.#engine = engine;
  }

  async addSuppressions(
    entries: readonly SuppressionRecord[],
    events?: (added: SuppressionRecord) => readonly DomainEvent[],
  ): Promise<SuppressionRecord[]> {
    if (entries.length === 0) return [];
    const first = new Map<string, SuppressionRecord>();
    for (const entry of entries) if (!first.has(entry.email)) first.set(entry.email, entry);
    const rows = [...first.values()].map((s) => ({
      id: s.id,
      email: s.email,
      origin: s.origin,
      source_id: s.sourceId ?? null,
      created_at: toEpochMs(s.createdAt, "createdAt"),
      reason: s.reason ?? null,
      bounce_type: s.bounceType ?? null,
      diagnostic: s.diagnostic ?? null,
    }));
    return inTransaction(this.#db, this.#engine, async (trx) => {
      for (const chunk of chunks(rows))
        await insertIfAbsent(this.#engine, trx.insertInto("flagpost_suppressions").values(chunk)).execute();
      const stored = new Map<string, SuppressionRecord>();
      for (const chunk of chunks([...first.keys()]))
        for (const row of await this.#lockedRead(trx, "email", chunk)) stored.set(row.email, toSuppression(row));
      const added = [...first.values()].filter((s) => stored.get(s.email)?.id === s.id);
      await recordDomainEvents(
        trx,
        added.flatMap((s) => events?.(stored.get(s.email)!) ?? []),
      );
      return entries.map((entry) => ({ ...stored.get(entry.email)! }));
    });
  }

  async getSuppression(idOrEmail: string): Promise<SuppressionRecord | undefined> {
    const row = await this.#db
      .selectFrom("flagpost_suppressions")
      .selectAll()
      .where((eb) => eb.or([eb("id", "=", idOrEmail), eb("email", "=", idOrEmail)]))
      .orderBy("id")
      .limit(1)
      .executeTakeFirst();
    return row && toSuppression(row);
  }

  async listSuppressions(filter: SuppressionFilter, page: PageRequest): Promise<SuppressionRecord[]> {
    let base = this.#db.selectFrom("flagpost_suppressions").selectAll();
    if (filter.origin !== undefined) base = base.where("origin", "=", filter.origin);
    const { query, reversed } = pageQuery(base, "id", page);
    const rows = (await query.execute()).map((row) => toSuppression(row as Selectable<SuppressionsTable>));
    return reversed ? rows.reverse() : rows;
  }

  async removeSuppressions(
    idsOrEmails: readonly string[],
    events?: (removed: SuppressionRecord) => readonly DomainEvent[],
  ): Promise<SuppressionRecord[]> {
    const keys = [...new Set(idsOrEmails)];
    if (keys.length === 0) return [];
    return inTransaction(this.#db, this.#engine, async (trx) => {
      const found = new Map<string, SuppressionRecord>();
      for (const chunk of chunks(keys)) {
        for (const column of ["id", "email"] as const)
          for (const row of await this.#lockedRead(trx, column, chunk)) found.set(row.id, toSuppression(row));
      }
      const removed = [...found.values()];
      for (const chunk of chunks(removed.map((s) => s.id)))
        await trx.deleteFrom("flagpost_suppressions").where("id", "in", chunk).execute();
      await recordDomainEvents(
        trx,
        removed.flatMap((s) => events?.(s) ?? []),
      );
      return removed;
    });
  }

  async countSoftBounce(bounce: SoftBounceRecord, since: string): Promise<number> {
    const sinceMs = toEpochMs(since, "since");
    return inTransaction(this.#db, this.#engine, async (trx) => {
      await insertIfAbsent(
        this.#engine,
        trx.insertInto("flagpost_soft_bounces").values({
          id: bounce.id,
          email: bounce.email,
          email_id: bounce.emailId,
          at: toEpochMs(bounce.at, "at"),
        }),
      ).execute();
      await trx
        .deleteFrom("flagpost_soft_bounces")
        .where("email", "=", bounce.email)
        .where("at", "<", sinceMs)
        .execute();
      const row = await trx
        .selectFrom("flagpost_soft_bounces")
        .select((eb) => eb.fn.countAll<number | string | bigint>().as("count"))
        .where("email", "=", bounce.email)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    });
  }

  async suppressedAmong(emails: readonly string[]): Promise<string[]> {
    const unique = [...new Set(emails)];
    if (unique.length === 0) return [];
    const found: string[] = [];
    for (const chunk of chunks(unique)) {
      const rows = await this.#db
        .selectFrom("flagpost_suppressions")
        .select("email")
        .where("email", "in", chunk)
        .execute();
      found.push(...rows.map((r) => r.email));
    }
    return found;
  }

  /** Rows whose `column` is one of `values`, locked on PostgreSQL and MySQL (SQLite has one writer). */
  async #lockedRead(trx: Trx, column: "id" | "email", values: string[]): Promise<Selectable<SuppressionsTable>[]> {
    const read = trx.selectFrom("flagpost_suppressions").selectAll().where(column, "in", values);
    return engineTraits(this.#engine).lockRows(read).execute();
  }
}
