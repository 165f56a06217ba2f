import { type RawBuilder, sql } from "kysely";
import type {
  EpochMs,
  ActivityRepository,
  EmailActivityBucket,
  EventCountBucket,
  FailingWebhook,
} from "../../src/ports/storage/index.js";
import { FlagpostError } from "../../src/errors.js";
import { checkedEpochMs } from "../../src/time.js";
import type { StorageActions } from "./storage-errors.js";
import { toNumber } from "./row-codec.js";
import type { Db } from "./tables.js";

/**
 * `column - column % size`: the start of the epoch-aligned bucket, the same on every engine for
 * the non-negative epoch milliseconds stored (MySQL's `/` would give a decimal). The size is a
 * literal, so the select and the GROUP BY are the same text (PostgreSQL matches them by text).
 */
function bucketStart(column: "sent_at" | "at" | "ts", size: number): RawBuilder<number | string> {
  if (!Number.isSafeInteger(size) || size <= 0)
    throw new FlagpostError("validation_error", `bucketMs must be a positive whole number, not ${size}`);
  return sql<number | string>`${sql.ref(column)} - ${sql.ref(column)} % ${sql.lit(size)}`;
}

/**
 * The overview's counts (src/ports/storage/activity.ts), each one GROUP BY over a range of an index:
 * `flagpost_emails_sent_at`, `flagpost_email_events_type_at` (migration 0021) and
 * `flagpost_events_ts`. Endpoints are few; the failing ones are read from their table.
 */
export class KyselyActivityRepository implements ActivityRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyActivityRepository> = {
    countEmailActivity: "count sends, bounces and complaints",
    countEvents: "count events",
    listFailingWebhooks: "list failing webhook endpoints",
  };

  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async countEmailActivity(from: EpochMs, to: EpochMs, bucketMs: number): Promise<EmailActivityBucket[]> {
    const [start, end] = [checkedEpochMs(from, "from"), checkedEpochMs(to, "to")];
    const sentBucket = bucketStart("sent_at", bucketMs);
    const eventBucket = bucketStart("at", bucketMs);
    const [sent, reports] = await Promise.all([
      this.#db
        .selectFrom("flagpost_emails")
        .select([sentBucket.as("bucket"), sql<number | string>`count(*)`.as("count")])
        .where("sent_at", ">=", start)
        .where("sent_at", "<", end)
        .groupBy(sentBucket)
        .execute(),
      this.#db
        .selectFrom("flagpost_email_events")
        .select(["type", eventBucket.as("bucket"), sql<number | string>`count(*)`.as("count")])
        .where("type", "in", ["bounced", "complained"])
        .where("at", ">=", start)
        .where("at", "<", end)
        .groupBy(["type", eventBucket])
        .execute(),
    ]);
    const buckets = new Map<number, EmailActivityBucket>();
    const bucket = (value: number | string) => {
      const key = toNumber(value);
      let found = buckets.get(key);
      if (!found) buckets.set(key, (found = { start: key, sent: 0, bounced: 0, complained: 0 }));
      return found;
    };
    for (const row of sent) bucket(row.bucket).sent += toNumber(row.count);
    for (const row of reports) bucket(row.bucket)[row.type as "bounced" | "complained"] += toNumber(row.count);
    return [...buckets.entries()].sort(([a], [b]) => a - b).map(([, found]) => found);
  }

  async countEvents(from: EpochMs, to: EpochMs, bucketMs: number): Promise<EventCountBucket[]> {
    const [start, end] = [checkedEpochMs(from, "from"), checkedEpochMs(to, "to")];
    const tsBucket = bucketStart("ts", bucketMs);
    const rows = await this.#db
      .selectFrom("flagpost_events")
      .select([tsBucket.as("bucket"), sql<number | string>`count(*)`.as("count")])
      .where("ts", ">=", start)
      .where("ts", "<", end)
      .groupBy(tsBucket)
      .execute();
    return rows
      .map((row) => ({ ms: toNumber(row.bucket), count: toNumber(row.count) }))
      .sort((a, b) => a.ms - b.ms)
      .map(({ ms, count }) => ({ start: ms, count }));
  }

  async listFailingWebhooks(limit: number): Promise<FailingWebhook[]> {
    const rows = await this.#db
      .selectFrom("flagpost_webhooks")
      .select(["id", "endpoint", "status", "failing_since"])
      .where("failing_since", "is not", null)
      .orderBy("failing_since")
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      endpoint: row.endpoint,
      status: row.status as FailingWebhook["status"],
      failingSince: toNumber(row.failing_since!),
    }));
  }
}
