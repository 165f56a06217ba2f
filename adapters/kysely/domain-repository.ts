import type { ColumnType, Kysely, Selectable, Transaction, Updateable } from "kysely";
import type {
  DomainRepository,
  EventsFor,
  PageRequest,
  SendingDomainChanges,
  SendingDomainDnsRecord,
  SendingDomainRecord,
  SendingDomainStatus,
} from "../../src/storage/index.js";
import { encodeBoolean, type Engine } from "./dialect.js";
import { recordDomainEvents } from "./domain-events.js";
import type { StorageActions } from "./storage-errors.js";
import { toBoolean, toEpochMs, toIso } from "./row-codec.js";
import type { FlagpostTables } from "./tables.js";
import { inTransaction } from "./transaction.js";
import { pageQuery } from "./webhook-repository.js";

type Int = ColumnType<number | string | bigint, number, number>;
type Bool = ColumnType<boolean | number, boolean | number, boolean | number>;

/** `flagpost_domains` (migration 0019-domains). `records` is JSON text of the record list. */
interface DomainsTable {
  id: string;
  name: string;
  region: string;
  status: string;
  selector: string;
  private_key: string;
  return_path: string;
  records: string;
  open_tracking: Bool;
  click_tracking: Bool;
  tls: string;
  created_at: Int;
  updated_at: Int;
  checked_at: ColumnType<number | string | bigint | null, number | null, number | null>;
  /** Migration 0020-domain-reputation: when the reputation guard paused the domain. */
  paused_at: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
}

type Tables = FlagpostTables & { flagpost_domains: DomainsTable };

function toDomain(row: Selectable<DomainsTable>): SendingDomainRecord {
  const domain: SendingDomainRecord = {
    id: row.id,
    name: row.name,
    region: row.region,
    status: row.status as SendingDomainStatus,
    selector: row.selector,
    privateKey: row.private_key,
    returnPath: row.return_path,
    records: JSON.parse(row.records) as SendingDomainDnsRecord[],
    openTracking: toBoolean(row.open_tracking),
    clickTracking: toBoolean(row.click_tracking),
    tls: row.tls as SendingDomainRecord["tls"],
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
  if (row.checked_at !== null) domain.checkedAt = toIso(row.checked_at);
  if (row.paused_at !== null) domain.pausedAt = toIso(row.paused_at);
  return domain;
}

/** Sending domains in `flagpost_domains`. */
export class KyselyDomainRepository implements DomainRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyDomainRepository> = {
    insertDomain: { action: "store the domain", conflict: (d) => `The domain "${d.name}" already exists` },
    getDomain: "read the domain",
    getDomainByName: "read the domain",
    listDomains: "list the domains",
    updateDomain: "update the domain",
    deleteDomain: "delete the domain",
    pauseDomain: "pause the domain",
    resumeDomain: "resume the domain",
    listDomainsToRecheck: "list the domains to recheck",
  };

  readonly #db: Kysely<Tables>;
  readonly #engine: Engine;

  constructor(db: Kysely<FlagpostTables>, engine: Engine) {
    this.#db = db as unknown as Kysely<Tables>;
    this.#engine = engine;
  }

  async insertDomain(d: SendingDomainRecord): Promise<void> {
    const row = {
      id: d.id,
      name: d.name,
      region: d.region,
      status: d.status,
      selector: d.selector,
      private_key: d.privateKey,
      return_path: d.returnPath,
      records: JSON.stringify(d.records),
      open_tracking: encodeBoolean(this.#engine, d.openTracking),
      click_tracking: encodeBoolean(this.#engine, d.clickTracking),
      tls: d.tls,
      created_at: toEpochMs(d.createdAt, "createdAt"),
      updated_at: toEpochMs(d.updatedAt, "updatedAt"),
      checked_at: d.checkedAt === undefined ? null : toEpochMs(d.checkedAt, "checkedAt"),
    };
    await this.#db.insertInto("flagpost_domains").values(row).execute();
  }

  async getDomain(id: string): Promise<SendingDomainRecord | undefined> {
    return this.#readOne("id", id);
  }

  async getDomainByName(name: string): Promise<SendingDomainRecord | undefined> {
    return this.#readOne("name", name);
  }

  async listDomains(page: PageRequest): Promise<SendingDomainRecord[]> {
    const base = (this.#db as unknown as Kysely<Record<string, DomainsTable>>)
      .selectFrom("flagpost_domains")
      .selectAll();
    const { query, reversed } = pageQuery(base as never, "id", page);
    const rows = ((await query.execute()) as Selectable<DomainsTable>[]).map(toDomain);
    return reversed ? rows.reverse() : rows;
  }

  async updateDomain(
    id: string,
    changes: SendingDomainChanges,
    events?: EventsFor<SendingDomainRecord>,
  ): Promise<SendingDomainRecord | undefined> {
    const set: Updateable<DomainsTable> = {
      updated_at: toEpochMs(changes.updatedAt, "updatedAt"),
    };
    if (changes.status !== undefined) set.status = changes.status;
    if (changes.records !== undefined) set.records = JSON.stringify(changes.records);
    if (changes.openTracking !== undefined) set.open_tracking = encodeBoolean(this.#engine, changes.openTracking);
    if (changes.clickTracking !== undefined) set.click_tracking = encodeBoolean(this.#engine, changes.clickTracking);
    if (changes.tls !== undefined) set.tls = changes.tls;
    if (changes.checkedAt !== undefined) set.checked_at = toEpochMs(changes.checkedAt, "checkedAt");
    return inTransaction(this.#db, this.#engine, async (trx) => {
      const result = await trx.updateTable("flagpost_domains").set(set).where("id", "=", id).executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return undefined;
      const row = await trx.selectFrom("flagpost_domains").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
      const stored = toDomain(row);
      await recordDomainEvents(trx as unknown as Transaction<FlagpostTables>, events?.(stored));
      return stored;
    });
  }

  async deleteDomain(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom("flagpost_domains").where("id", "=", id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async listDomainsToRecheck(checkedBefore: string, limit: number): Promise<SendingDomainRecord[]> {
    const before = toEpochMs(checkedBefore, "checkedBefore");
    const rows = await this.#db
      .selectFrom("flagpost_domains")
      .selectAll()
      .where("status", "!=", "not_started")
      .where("checked_at", "<", before)
      .orderBy("checked_at")
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map(toDomain);
  }

  async pauseDomain(
    id: string,
    at: string,
    events?: EventsFor<SendingDomainRecord>,
  ): Promise<SendingDomainRecord | undefined> {
    const ms = toEpochMs(at, "at");
    return inTransaction(this.#db, this.#engine, async (trx) => {
      // Conditional on paused_at being null: of concurrent pauses one updates a row, and only it stores the event.
      const result = await trx
        .updateTable("flagpost_domains")
        .set({ paused_at: ms, updated_at: ms })
        .where("id", "=", id)
        .where("paused_at", "is", null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return undefined;
      const row = await trx.selectFrom("flagpost_domains").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
      const stored = toDomain(row);
      await recordDomainEvents(trx as unknown as Transaction<FlagpostTables>, events?.(stored));
      return stored;
    });
  }

  async resumeDomain(id: string, at: string): Promise<SendingDomainRecord | undefined> {
    const ms = toEpochMs(at, "at");
    await this.#db
      .updateTable("flagpost_domains")
      .set({ paused_at: null, updated_at: ms })
      .where("id", "=", id)
      .executeTakeFirst();
    return this.#readOne("id", id);
  }

  async #readOne(column: "id" | "name", value: string): Promise<SendingDomainRecord | undefined> {
    const row = await this.#db.selectFrom("flagpost_domains").selectAll().where(column, "=", value).executeTakeFirst();
    return row && toDomain(row);
  }
}
