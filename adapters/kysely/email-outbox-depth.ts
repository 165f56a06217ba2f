import { sql } from "kysely";
import type { OutboxDepth } from "../../src/storage/index.js";
import type { Db } from "./email-rows.js";
import { toIso } from "./row-codec.js";

/**
 * The outbox for GET /metrics in one read of the `flagpost_emails_due` index (status,
 * next_attempt_at): queued emails due by `nowMs` and later, and the earliest due time.
 */
export async function outboxDepthOf(db: Db, nowMs: number): Promise<OutboxDepth> {
  const row = await db
    .selectFrom("flagpost_emails")
    .where("status", "=", "queued")
    .select([
      sql<string | number>`count(*)`.as("queued"),
      sql<string | number | null>`sum(case when next_attempt_at <= ${nowMs} then 1 else 0 end)`.as("due"),
      sql<string | number | null>`min(next_attempt_at)`.as("earliest"),
    ])
    .executeTakeFirst();
  const queued = Number(row?.queued ?? 0);
  const due = Number(row?.due ?? 0);
  const earliest = row?.earliest ?? null;
  return {
    due,
    scheduled: queued - due,
    ...(due > 0 && earliest !== null ? { oldestDueAt: toIso(earliest) } : {}),
  };
}
