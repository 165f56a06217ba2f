import { createIndexIfAbsent as createIndex, createTableIfAbsent as createTable } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * Outbound webhooks: endpoints, their subscriptions (one row per endpoint and event type, so the
 * writes that cause events find their subscribers by index), the events themselves (stored once,
 * whatever the number of endpoints), one delivery per event and endpoint (a jobs-shaped table:
 * due time, lease owner, lease end) and every attempt. Like 0003, safe to run again over a
 * half-finished run (MySQL cannot roll DDL back).
 */

export const webhooksMigration = schemaStep(async (db, engine, t) => {
  await createTable(db, engine, "flagpost_webhooks")
    .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("endpoint", t.text, (c) => c.notNull())
    .addColumn("events", t.text, (c) => c.notNull())
    .addColumn("status", t.exactText(16), (c) => c.notNull())
    .addColumn("secret", t.text, (c) => c.notNull())
    .addColumn("previous_secret", t.text)
    .addColumn("previous_secret_until", t.bigint)
    .addColumn("created_at", t.bigint, (c) => c.notNull())
    .addColumn("updated_at", t.bigint, (c) => c.notNull())
    .addColumn("failing_since", t.bigint)
    .execute();

  await createTable(db, engine, "flagpost_webhook_subscriptions")
    .addColumn("event_type", t.exactText(64), (c) => c.notNull())
    .addColumn("webhook_id", t.exactText(64), (c) => c.notNull())
    .addPrimaryKeyConstraint("flagpost_webhook_subscriptions_pk", ["event_type", "webhook_id"])
    .execute();
  await createIndex(db, engine, "flagpost_webhook_subscriptions_webhook", "flagpost_webhook_subscriptions", [
    "webhook_id",
  ]);

  await createTable(db, engine, "flagpost_webhook_events")
    .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("type", t.exactText(64), (c) => c.notNull())
    .addColumn("created_at", t.bigint, (c) => c.notNull())
    .addColumn("data", t.longText, (c) => c.notNull())
    .execute();

  await createTable(db, engine, "flagpost_webhook_deliveries")
    .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("webhook_id", t.exactText(64), (c) => c.notNull())
    .addColumn("event_id", t.exactText(64), (c) => c.notNull())
    .addColumn("event_type", t.exactText(64), (c) => c.notNull())
    .addColumn("created_at", t.bigint, (c) => c.notNull())
    .addColumn("status", t.exactText(16), (c) => c.notNull())
    .addColumn("attempts", t.bigint, (c) => c.notNull())
    .addColumn("next_attempt_at", t.bigint, (c) => c.notNull())
    .addColumn("last_attempt_at", t.bigint)
    .addColumn("lease_owner", t.exactText(200))
    .addColumn("lease_until", t.bigint)
    .addUniqueConstraint("flagpost_webhook_deliveries_event", ["webhook_id", "event_id"])
    .execute();
  // The claim query: due deliveries by due time.
  await createIndex(db, engine, "flagpost_webhook_deliveries_due", "flagpost_webhook_deliveries", [
    "status",
    "next_attempt_at",
  ]);

  await createTable(db, engine, "flagpost_webhook_attempts")
    .addColumn("id", t.exactText(64), (c) => c.notNull().primaryKey())
    .addColumn("delivery_id", t.exactText(64), (c) => c.notNull())
    .addColumn("webhook_id", t.exactText(64), (c) => c.notNull())
    .addColumn("event_id", t.exactText(64), (c) => c.notNull())
    .addColumn("sent_at", t.bigint, (c) => c.notNull())
    .addColumn("status_code", t.bigint, (c) => c.notNull())
    .addColumn("duration_ms", t.bigint, (c) => c.notNull())
    .addColumn("response", t.text, (c) => c.notNull())
    .execute();
  await createIndex(db, engine, "flagpost_webhook_attempts_delivery", "flagpost_webhook_attempts", [
    "delivery_id",
    "id",
  ]);
  await createIndex(db, engine, "flagpost_webhook_attempts_webhook", "flagpost_webhook_attempts", ["webhook_id"]);
});
