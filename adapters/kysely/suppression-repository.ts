import type { Selectable } from "kysely";
import type {
  PageRequest,
  SoftBounceRecord,
  SuppressionFilter,
  SuppressionOrigin,
  SuppressionRecord,
  SuppressionRepository,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import { compiledOnce } from "./compiled-once.js";
import { insertIfAbsent } from "./dialect.js";
import type { StorageActions } from "./storage-errors.js";
import { toNumber } from "./row-codec.js";
import type { SuppressionsTable } from "./tables.js";
import { inTransaction } from "./transaction.js";
import { pageQuery } from "./webhook-repository.js";
import { EngineRepository } from "./engine-repository.js";

/** Addresses per statement: far below every engine's limit on bound parameters. */
const CHUNK = 100;

export function toSuppression(row: Selectable<SuppressionsTable>): SuppressionRecord {
  const record: SuppressionRecord = {
    id: row.id,
    email: row.email,
    origin: row.origin as SuppressionOrigin,
    createdAt: toNumber(row.created_at),
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
 * The suppression list in `flagpost_suppressions`, unique by lower-cased address: its reads and
 * the soft-bounce counter. Entries are added and removed in a unit of work (suppression-rows.ts).
 */
export class KyselySuppressionRepository extends EngineRepository implements SuppressionRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselySuppressionRepository> = {
    getSuppression: "read the suppression",
    listSuppressions: "list the suppressions",
    countSoftBounce: "count the soft bounces",
    suppressedAmong: "check the suppression list",
  };

  async getSuppression(idOrEmail: string): Promise<SuppressionRecord | undefined> {
    const row = await this.db
      .selectFrom("flagpost_suppressions")
      .selectAll()
      .where((eb) => eb.or([eb("id", "=", idOrEmail), eb("email", "=", idOrEmail)]))
      .orderBy("id")
      .limit(1)
      .executeTakeFirst();
    return row && toSuppression(row);
  }

  async listSuppressions(filter: SuppressionFilter, page: PageRequest): Promise<SuppressionRecord[]> {
    let base = this.db.selectFrom("flagpost_suppressions").selectAll();
    if (filter.origin !== undefined) base = base.where("origin", "=", filter.origin);
    const { query, reversed } = pageQuery(base, "id", page);
    const rows = (await query.execute()).map((row) => toSuppression(row as Selectable<SuppressionsTable>));
    return reversed ? rows.reverse() : rows;
  }

  async countSoftBounce(bounce: SoftBounceRecord, since: number): Promise<number> {
    const sinceMs = checkedEpochMs(since, "since");
    return inTransaction(this.db, this.engine, async (trx) => {
      await insertIfAbsent(
        this.engine,
        trx.insertInto("flagpost_soft_bounces").values({
          id: bounce.id,
          email: bounce.email,
          email_id: bounce.emailId,
          at: checkedEpochMs(bounce.at, "at"),
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
      // Asked for every group of emails sent together: compiled once per list length.
      const query = compiledOnce(
        `${this.engine} suppressedAmong ${chunk.length}`,
        (bind) =>
          this.db
            .selectFrom("flagpost_suppressions")
            .select("email")
            .where(
              "email",
              "in",
              chunk.map((_, i) => bind(String(i))),
            ),
        { ...chunk },
      );
      const { rows } = await this.db.executeQuery<{ email: string }>(query);
      found.push(...rows.map((r) => r.email));
    }
    return found;
  }
}
