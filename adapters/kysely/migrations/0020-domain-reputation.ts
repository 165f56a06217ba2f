import { addColumnIfAbsent, createIndexIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * The reputation guard (docs/domains.md, "Reputation guard"):
 * - `flagpost_emails.sending_domain`: the `from` address's domain, lower-cased ASCII, written with
 *   the email, so a claim can pass over mail of a paused domain and the guard can read a domain's
 *   last sends (index on sending_domain, sent_at). NULL on emails stored before this migration:
 *   they are never held and never counted.
 * - `flagpost_emails.reputation_mark`: `bounce` (a Permanent bounce was reported) or `complaint`,
 *   set when the report is applied.
 * - `flagpost_domains.paused_at`: when the guard paused the domain; NULL while it sends.
 * Safe to run again (MySQL cannot roll DDL back).
 */
export const domainReputationMigration = schemaStep(async (db, engine, t) => {
  await addColumnIfAbsent(db, engine, "flagpost_emails", "sending_domain", t.exactText(253));
  await addColumnIfAbsent(db, engine, "flagpost_emails", "reputation_mark", t.exactText(16));
  await addColumnIfAbsent(db, engine, "flagpost_domains", "paused_at", t.bigint);
  await createIndexIfAbsent(db, engine, "flagpost_emails_sending_domain", "flagpost_emails", [
    "sending_domain",
    "sent_at",
  ]);
});
