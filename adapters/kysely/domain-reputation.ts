import { sql } from "kysely";
import type { DomainReputationCounts, ReputationMark } from "../../src/ports/storage/index.js";
import type { AnyExpressionBuilder } from "./dialect.js";
import type { JobTableSpec } from "./job-claims.js";
import { toNumber } from "./row-codec.js";
import type { Db } from "./email-rows.js";

/**
 * The reputation guard's SQL (docs/domains.md, "Reputation guard"; migration 0020): which queued
 * emails a claim may take, the marks reports leave, and the window count, each one statement that
 * reads the same on SQLite, PostgreSQL and MySQL.
 */

/**
 * The outbox as the claim sees it: queued, and not sent from a stored domain that is paused. The
 * domain is looked up by its unique name per candidate row; mail from a domain flagpost does not
 * store (or stored before migration 0020, with no sending_domain) is never held.
 */
export const CLAIMABLE_OUTBOX: JobTableSpec = {
  table: "flagpost_emails",
  ready: (eb: AnyExpressionBuilder) =>
    eb.and([
      eb("status", "=", "queued"),
      eb.not(
        eb.exists(
          eb
            .selectFrom("flagpost_domains")
            .select(sql<number>`1`.as("held"))
            .whereRef("flagpost_domains.name", "=", "flagpost_emails.sending_domain")
            .where("flagpost_domains.paused_at", "is not", null),
        ),
      ),
    ]),
};

/** A complaint replaces a bounce mark, never the other way round. */
export async function markReputation(db: Db, id: string, mark: ReputationMark): Promise<void> {
  let update = db.updateTable("flagpost_emails").set({ reputation_mark: mark }).where("id", "=", id);
  if (mark === "bounce")
    update = update.where((eb) => eb.or([eb("reputation_mark", "is", null), eb("reputation_mark", "!=", "complaint")]));
  await update.execute();
}

/** The last `window` emails sent from `domain` (newest sent_at, then id) and their marks, counted by the database. */
export async function countReputation(db: Db, domain: string, window: number): Promise<DomainReputationCounts> {
  const last = db
    .selectFrom("flagpost_emails")
    .select("reputation_mark")
    .where("sending_domain", "=", domain)
    .where("sent_at", "is not", null)
    .orderBy("sent_at", "desc")
    .orderBy("id", "desc")
    .limit(window)
    .as("last_sends");
  const row = await db
    .selectFrom(last)
    .select([
      sql<number | string>`count(*)`.as("sends"),
      sql<number | string | null>`sum(case when reputation_mark = 'bounce' then 1 else 0 end)`.as("bounces"),
      sql<number | string | null>`sum(case when reputation_mark = 'complaint' then 1 else 0 end)`.as("complaints"),
    ])
    .executeTakeFirstOrThrow();
  return {
    sends: toNumber(row.sends),
    bounces: toNumber(row.bounces ?? 0),
    complaints: toNumber(row.complaints ?? 0),
  };
}
