import { createIndexIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * The overview's counts over time (GET /v1/overview, activity-repository.ts) read an index each:
 * - `flagpost_emails_sent_at` (sent_at): sends per hour. The reputation guard's
 *   (sending_domain, sent_at) cannot serve a range over every domain.
 * - `flagpost_email_events_type_at` (type, at): bounces and complaints per hour; the events'
 *   primary key (email_id, seq) only finds one email's events.
 * Events per minute use `flagpost_events_ts`, which exists. Safe to run again.
 */
export const activityIndexesMigration = schemaStep(async (db, engine) => {
  await createIndexIfAbsent(db, engine, "flagpost_emails_sent_at", "flagpost_emails", ["sent_at"]);
  await createIndexIfAbsent(db, engine, "flagpost_email_events_type_at", "flagpost_email_events", ["type", "at"]);
});
