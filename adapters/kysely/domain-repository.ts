import type { ColumnType, Insertable, Kysely, Selectable } from "kysely";
import type {
  EpochMs,
  DomainRepository,
  PageRequest,
  SendingDomainDnsRecord,
  SendingDomainRecord,
  SendingDomainStatus,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import { compiledOnce } from "./compiled-once.js";
import { encodeBoolean, type Engine } from "./dialect.js";
import type { StorageActions } from "./storage-errors.js";
import { toBoolean, toNumber } from "./row-codec.js";
import type { FlagpostTables } from "./tables.js";
import { pageQuery } from "./webhook-repository.js";
import { retryingDeadlocks } from "./transaction.js";

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

export type DomainTables = FlagpostTables & { flagpost_domains: DomainsTable };

export function toDomain(row: Selectable<DomainsTable>): SendingDomainRecord {
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
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
  if (row.checked_at !== null) domain.checkedAt = toNumber(row.checked_at);
  if (row.paused_at !== null) domain.pausedAt = toNumber(row.paused_at);
  return domain;
}

export function toDomainRow(engine: Engine, d: SendingDomainRecord): Insertable<DomainsTable> {
  return {
    id: d.id,
    name: d.name,
    region: d.region,
    status: d.status,
    selector: d.selector,
    private_key: d.privateKey,
    return_path: d.returnPath,
    records: JSON.stringify(d.records),
    open_tracking: encodeBoolean(engine, d.openTracking),
    click_tracking: encodeBoolean(engine, d.clickTracking),
    tls: d.tls,
    created_at: checkedEpochMs(d.createdAt, "createdAt"),
    updated_at: checkedEpochMs(d.updatedAt, "updatedAt"),
    checked_at: d.checkedAt === undefined ? null : checkedEpochMs(d.checkedAt, "checkedAt"),
    paused_at: d.pausedAt === undefined ? null : checkedEpochMs(d.pausedAt, "pausedAt"),
  };
}

/** Sending domains in `flagpost_domains`: reads, inserts and deletes (changes: domain-rows.ts). */
export class KyselyDomainRepository implements DomainRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyDomainRepository> = {
    insertDomain: { action: "store the domain", conflict: (d) => `The domain "${d.name}" already exists` },
    getDomain: "read the domain",
    getDomainByName: "read the domain",
    listDomains: "list the domains",
    deleteDomain: "delete the domain",
    listDomainsToRecheck: "list the domains to recheck",
  };

  readonly #db: Kysely<DomainTables>;
  readonly #engine: Engine;

  constructor(db: Kysely<FlagpostTables>, engine: Engine) {
    this.#db = db as unknown as Kysely<DomainTables>;
    this.#engine = engine;
  }

  async insertDomain(domain: SendingDomainRecord): Promise<void> {
    // Two adds of one name at once can deadlock on MariaDB/MySQL instead of failing as duplicates
    // (retryingDeadlocks says how): the victim runs again, so the loser reads `conflict`.
    const row = toDomainRow(this.#engine, domain);
    await retryingDeadlocks(this.#engine, () => this.#db.insertInto("flagpost_domains").values(row).execute());
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

  async deleteDomain(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom("flagpost_domains").where("id", "=", id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async listDomainsToRecheck(checkedBefore: EpochMs, limit: number): Promise<SendingDomainRecord[]> {
    const before = checkedEpochMs(checkedBefore, "checkedBefore");
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

  async #readOne(column: "id" | "name", value: string): Promise<SendingDomainRecord | undefined> {
    // Read by name for every group of emails accepted together: compiled once per column.
    const query = compiledOnce(
      `${this.#engine} domain by ${column}`,
      (bind) => this.#db.selectFrom("flagpost_domains").selectAll().where(column, "=", bind("value")),
      { value },
    );
    const row = (await this.#db.executeQuery<Selectable<DomainsTable>>(query)).rows[0];
    return row && toDomain(row);
  }
}
