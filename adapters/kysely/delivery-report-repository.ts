import type { Kysely, Selectable } from "kysely";
import type { DeliveryReport } from "../../src/emails/index.js";
import type { DeliveryReportRepository, PageRequest, UnmatchedReportRecord } from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { Engine } from "./dialect.js";
import type { StorageActions } from "./storage-errors.js";
import { toNumber } from "./row-codec.js";
import type { FlagpostTables, UnmatchedReportsTable } from "./tables.js";
import { inTransaction } from "./transaction.js";
import { pageQuery } from "./webhook-repository.js";

/** Rows per INSERT statement. */
const CHUNK = 100;

function toUnmatched(row: Selectable<UnmatchedReportsTable>): UnmatchedReportRecord {
  return {
    id: row.id,
    receivedAt: toNumber(row.received_at),
    reason: row.reason,
    report: JSON.parse(row.report) as DeliveryReport,
  };
}

/** Unmatched delivery reports in `flagpost_unmatched_reports`, the report as JSON text. */
export class KyselyDeliveryReportRepository implements DeliveryReportRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyDeliveryReportRepository> = {
    recordUnmatchedReports: {
      action: "store the unmatched reports",
      conflict: () => "A report with that id already exists",
    },
    listUnmatchedReports: "list the unmatched reports",
  };

  readonly #db: Kysely<FlagpostTables>;
  readonly #engine: Engine;

  constructor(db: Kysely<FlagpostTables>, engine: Engine) {
    this.#db = db;
    this.#engine = engine;
  }

  async recordUnmatchedReports(reports: readonly UnmatchedReportRecord[]): Promise<void> {
    if (reports.length === 0) return;
    const rows = reports.map((r) => ({
      id: r.id,
      received_at: checkedEpochMs(r.receivedAt, "receivedAt"),
      reason: r.reason,
      report: JSON.stringify(r.report),
    }));
    await inTransaction(this.#db, this.#engine, async (trx) => {
      for (let i = 0; i < rows.length; i += CHUNK)
        await trx
          .insertInto("flagpost_unmatched_reports")
          .values(rows.slice(i, i + CHUNK))
          .execute();
    });
  }

  async listUnmatchedReports(page: PageRequest): Promise<UnmatchedReportRecord[]> {
    const { query, reversed } = pageQuery(this.#db.selectFrom("flagpost_unmatched_reports").selectAll(), "id", page);
    const rows = (await query.execute()).map((row) => toUnmatched(row as Selectable<UnmatchedReportsTable>));
    return reversed ? rows.reverse() : rows;
  }
}
