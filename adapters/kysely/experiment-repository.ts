import { type RawBuilder, sql } from "kysely";
import type { ExperimentQuery, ExperimentRepository, ExperimentTotals } from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { Engine } from "./dialect.js";
import type { StorageActions } from "./storage-errors.js";
import { toNumber } from "./row-codec.js";
import { EngineRepository } from "./engine-repository.js";

/**
 * How each engine reads the JSON text of `properties`. `experimentId` MUST be written exactly as
 * the expression index of migration 0010-results-index, or the index is not used.
 */
interface JsonReads {
  /** properties.experimentId as text, null when absent or not a string. */
  experimentId: RawBuilder<string | null>;
  /**
   * properties.variant in two steps, so the whole JSON is read once per row: `variantValue` is
   * selected once per assignment event as column `v`, `variant(v)` turns it into text (null when
   * absent or not a string).
   */
  variantValue: RawBuilder<unknown>;
  variant(v: RawBuilder<unknown>): RawBuilder<string | null>;
  /** How the assignment rows are kept for the next step: PostgreSQL would otherwise inline `v` and parse again. */
  materialized: RawBuilder<unknown>;
  /** properties.revenue as a double, null when absent or not a number. */
  revenue: RawBuilder<number | null>;
  /** `a = b` for text, byte for byte. */
  same(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown>;
}

const READS: Record<Engine, JsonReads> = {
  sqlite: {
    experimentId: sql`json_extract(properties, '$.experimentId')`,
    variantValue: sql`case when json_type(properties, '$.variant') = 'text' then json_extract(properties, '$.variant') end`,
    variant: (v) => sql`${v}`,
    materialized: sql``,
    revenue: sql`case when json_type(properties, '$.revenue') in ('integer', 'real') then json_extract(properties, '$.revenue') end`,
    same: (a, b) => sql`${a} = ${b}`,
  },
  postgres: {
    experimentId: sql`(properties::json ->> 'experimentId')`,
    variantValue: sql`(properties::json -> 'variant')`,
    variant: (v) => sql`case when json_typeof(${v}) = 'string' then ${v} #>> '{}' end`,
    materialized: sql`materialized`,
    revenue: sql`case when json_typeof(properties::json -> 'revenue') = 'number' then (properties::json ->> 'revenue')::float8 end`,
    same: (a, b) => sql`${a} = ${b}`,
  },
  // JSON_UNQUOTE gives text in the connection's (case-insensitive) collation, and even utf8mb4_bin
  // is PAD SPACE ("a" = "a "): JSON strings are read as binary (exact bytes, no padding), columns
  // compared with their byte lengths too.
  mysql: {
    experimentId: sql`(case when json_type(json_extract(properties, '$.experimentId')) = 'STRING' then cast(json_unquote(json_extract(properties, '$.experimentId')) as binary) end)`,
    variantValue: sql`(case when json_type(json_extract(properties, '$.variant')) = 'STRING' then cast(json_unquote(json_extract(properties, '$.variant')) as binary) end)`,
    variant: (v) => sql`${v}`,
    materialized: sql``,
    revenue: sql`case when json_type(json_extract(properties, '$.revenue')) in ('INTEGER', 'UNSIGNED INTEGER', 'DOUBLE', 'DECIMAL') then json_extract(properties, '$.revenue') + 0e0 end`,
    same: (a, b) => sql`(${a} = ${b} and octet_length(${a}) = octet_length(${b}))`,
  },
};

interface TotalsRow {
  /** A Buffer on MySQL, where the variant is read as binary. */
  variant: string | Uint8Array | null;
  users: number | string | bigint;
  conversions: number | string | bigint | null;
  revenue: number | string | null;
  revenue_squares: number | string | null;
}

/**
 * Experiment sums in one statement, without a lookup per user: the assignment events (found
 * through the experimentId index) and the metric events (through the (event, ts) index) are read
 * once each into one list; a window over each user's rows gives the exposure (their first
 * assignment event) to every row of that user, so each metric row knows whether it counts; the
 * rows are then grouped per user and the users per variant. Users seen in several variants
 * (min(variant) ≠ max(variant): cheaper than count(distinct), which sorts each user's rows) fall
 * in the null group. Users are grouped by id and byte length: MySQL's PAD SPACE would otherwise
 * merge "u1" and "u1 ". (A join from each user to their metric events looked each user up in an
 * index: 100,000 users took seconds; see docs/experiments.md, "How it runs".)
 */
export class KyselyExperimentRepository extends EngineRepository implements ExperimentRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyExperimentRepository> = {
    experimentTotals: "compute the experiment results",
  };

  async experimentTotals(query: ExperimentQuery): Promise<ExperimentTotals> {
    const from = query.from === undefined ? undefined : checkedEpochMs(query.from, "from");
    const to = query.to === undefined ? undefined : checkedEpochMs(query.to, "to");
    const r = READS[this.engine];
    const window = sql.join(
      [from === undefined ? sql`1 = 1` : sql`ts >= ${from}`, to === undefined ? sql`1 = 1` : sql`ts < ${to}`],
      sql` and `,
    );
    const statement = sql<TotalsRow>`
      with tagged as ${r.materialized} (
        select user_id, octet_length(user_id) as user_bytes, ts, ${r.variantValue} as v
        from flagpost_events
        where ${r.same(r.experimentId, sql`${query.experimentId}`)} and ${window}
      ),
      combined as (
        select user_id, user_bytes, ts, ${r.variant(sql.ref("v"))} as variant, null as revenue, 0 as is_metric
        from tagged
        where ${r.variant(sql.ref("v"))} is not null
        union all
        select user_id, octet_length(user_id), ts, null, ${r.revenue}, 1
        from flagpost_events
        where name_id = (select id from flagpost_event_names where name = ${query.metric}) and ${window}
      ),
      marked as (
        select user_id, user_bytes, ts, variant, revenue, is_metric,
               min(case when is_metric = 0 then ts end) over (partition by user_id, user_bytes) as exposed_at
        from combined
      ),
      per_user as (
        select case when min(variant) = max(variant) then min(variant) end as variant,
               max(case when is_metric = 1 and ts >= exposed_at then 1 else 0 end) as converted,
               coalesce(sum(case when is_metric = 1 and ts >= exposed_at then revenue end), 0) as revenue
        from marked
        where exposed_at is not null
        group by user_id, user_bytes
      )
      select variant, count(*) as users, sum(converted) as conversions, sum(revenue) as revenue, sum(revenue * revenue) as revenue_squares
      from per_user
      group by variant`;
    const { rows } = await statement.execute(this.db);
    const totals: ExperimentTotals = { variants: [], excludedUsers: 0 };
    for (const row of rows) {
      if (row.variant === null) {
        totals.excludedUsers = toNumber(row.users);
        continue;
      }
      totals.variants.push({
        variant: typeof row.variant === "string" ? row.variant : Buffer.from(row.variant).toString("utf8"),
        users: toNumber(row.users),
        conversions: toNumber(row.conversions ?? 0),
        revenue: Number(row.revenue ?? 0),
        revenueSquares: Number(row.revenue_squares ?? 0),
      });
    }
    return totals;
  }
}
