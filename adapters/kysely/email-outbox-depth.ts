import { sql } from "kysely";
import type { OutboxDepth } from "../../src/ports/storage/index.js";
import type { Db } from "./email-rows.js";
import { toNumber } from "./row-codec.js";

/**
 * The outbox for GET /metrics in one read of the `flagpost_emails_due` index (status,
 * next_attempt_at): queued emails due by `nowMs` and later, and the earliest due time. Mail the
 * reputation guard holds (its stored sending domain is paused; the claim's test in
 * domain-reputation.ts) is counted apart: it is not due until an operator resumes the domain, so
 * it neither ages the outbox nor counts as work the senders fall behind on.
 */
export async function outboxDepthOf(db: Db, nowMs: number): Promise<OutboxDepth> {
  const held = sql<boolean>`exists (select 1 from flagpost_domains where flagpost_domains.name = flagpost_emails.sending_domain and flagpost_domains.paused_at is not null)`;
  const row = await db
    .selectFrom("flagpost_emails")
    .where("status", "=", "queued")
    .select([
      sql<string | number>`count(*)`.as("queued"),
      sql<string | number | null>`sum(case when ${held} then 1 else 0 end)`.as("held"),
      sql<string | number | null>`sum(case when ${held} then 0 when next_attempt_at <= ${nowMs} then 1 else 0 end)`.as(
        "due",
      ),
      sql<string | number | null>`min(case when ${held} then null else next_attempt_at end)`.as("earliest"),
    ])
    .executeTakeFirst();
  const queued = Number(row?.queued ?? 0);
  const heldCount = Number(row?.held ?? 0);
  const due = Number(row?.due ?? 0);
  const earliest = row?.earliest ?? null;
  return {
    due,
    scheduled: queued - heldCount - due,
    held: heldCount,
    ...(due > 0 && earliest !== null ? { oldestDueAt: toNumber(earliest) } : {}),
  };
}
