import { sql } from "kysely";
import type {
  EpochMs,
  FlagInsightCount,
  FlagInsightRepository,
  FlagInsightTotal,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import { engineTraits } from "./engines/index.js";
import type { StorageActions } from "./storage-errors.js";
import { toNumber } from "./row-codec.js";
import { inTransaction } from "./transaction.js";
import { EngineRepository } from "./engine-repository.js";
import type { Db } from "./tables.js";

/** Rows per INSERT: well under every engine's bound-parameter limit (5 per row). */
const CHUNK = 500;

/**
 * `result` column: the variant key, or "_on" / "_off" for a plain answer. A variant key starts
 * with a letter or digit, so neither can be mistaken for one, and any key fits the 128 characters.
 */
function encodeResult(enabled: boolean, variant: string | null): string {
  return variant ?? (enabled ? "_on" : "_off");
}

function decodeResult(result: string): { enabled: boolean; variant: string | null } {
  if (result === "_on") return { enabled: true, variant: null };
  if (result === "_off") return { enabled: false, variant: null };
  return { enabled: true, variant: result };
}

interface Row {
  flag_key: string;
  hour: number;
  result: string;
  count: number;
  last_at: number;
}

/**
 * Counts in `flagpost_flag_insights` (migration 0009), primary key (flag_key, hour, result).
 * `add` is one upsert that adds to the stored count — ON CONFLICT … DO UPDATE on SQLite and
 * PostgreSQL, ON DUPLICATE KEY UPDATE on MySQL — so processes writing at once sum their counts
 * without reading first. Rows go in key order, so two writers lock them in the same order.
 */
export class KyselyFlagInsightRepository extends EngineRepository implements FlagInsightRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyFlagInsightRepository> = {
    add: "store flag evaluation counts",
    hourly: "read flag evaluation counts",
    totals: "read flag evaluation counts",
  };

  async add(counts: readonly FlagInsightCount[]): Promise<void> {
    // One row per key: PostgreSQL refuses an upsert that touches the same row twice.
    const merged = new Map<string, Row>();
    for (const c of counts) {
      const row: Row = {
        flag_key: c.flagKey,
        hour: checkedEpochMs(c.hour, "hour"),
        result: encodeResult(c.enabled, c.variant),
        count: c.count,
        last_at: checkedEpochMs(c.lastAt, "lastAt"),
      };
      const key = `${row.flag_key}\n${row.hour}\n${row.result}`;
      const seen = merged.get(key);
      if (seen === undefined) merged.set(key, row);
      else merged.set(key, { ...seen, count: seen.count + row.count, last_at: Math.max(seen.last_at, row.last_at) });
    }
    const rows = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
    if (rows.length === 0) return;
    await inTransaction(this.db, this.engine, async (trx) => {
      for (let i = 0; i < rows.length; i += CHUNK) await this.#upsert(trx, rows.slice(i, i + CHUNK));
    });
  }

  async #upsert(db: Db, rows: Row[]): Promise<void> {
    const engine = engineTraits(this.engine);
    const current = (column: string) => sql.ref(`flagpost_flag_insights.${column}`);
    await engine
      .upsert(db.insertInto("flagpost_flag_insights").values(rows), ["flag_key", "hour", "result"], {
        count: sql<number>`${current("count")} + ${engine.incoming("count")}`,
        last_at: sql<number>`${engine.greatest}(${current("last_at")}, ${engine.incoming("last_at")})`,
      })
      .execute();
  }

  async hourly(flagKey: string, from: EpochMs, to: EpochMs): Promise<FlagInsightCount[]> {
    const start = checkedEpochMs(from, "from");
    const end = checkedEpochMs(to, "to");
    const rows = await this.db
      .selectFrom("flagpost_flag_insights")
      .selectAll()
      .where("flag_key", "=", flagKey)
      .where("hour", ">=", start)
      .where("hour", "<", end)
      .orderBy("hour")
      .orderBy("result")
      .execute();
    return rows.map((row) => ({
      flagKey: row.flag_key,
      hour: toNumber(row.hour),
      ...decodeResult(row.result),
      count: toNumber(row.count),
      lastAt: toNumber(row.last_at),
    }));
  }

  async totals(flagKeys: readonly string[], since: EpochMs): Promise<FlagInsightTotal[]> {
    if (flagKeys.length === 0) return [];
    const start = checkedEpochMs(since, "since");
    const rows = await this.db
      .selectFrom("flagpost_flag_insights")
      .select((eb) => [
        "flag_key",
        "result",
        eb.fn.sum<number | string | bigint>("count").as("count"),
        eb.fn.max<number | string | bigint>("last_at").as("last_at"),
      ])
      .where("flag_key", "in", [...flagKeys])
      .where("hour", ">=", start)
      .groupBy(["flag_key", "result"])
      .execute();
    return rows.map((row) => ({
      flagKey: row.flag_key,
      ...decodeResult(row.result),
      count: toNumber(row.count),
      lastAt: toNumber(row.last_at),
    }));
  }
}
