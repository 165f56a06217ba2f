import type { Insertable, Transaction } from "kysely";
import { uuidv7 } from "../../src/ids.js";
import type { DomainEvent } from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import { compiledOnce } from "./compiled-once.js";
import type { Engine } from "./dialect.js";
import type { FlagpostTables, WebhookDeliveriesTable, WebhookEventsTable } from "./tables.js";
import { markDeliveriesStored } from "./transaction.js";

/** Rows per INSERT statement: far below every engine's limit on bound parameters. */
const INSERT_CHUNK = 100;

/**
 * Emits domain events inside the transaction of the change that causes them: one delivery per
 * enabled endpoint subscribed to each event's type, due at once, and the event itself (once, for
 * all its deliveries). An event nobody is subscribed to leaves no row. Every repository write that
 * causes events calls this, so a change and its deliveries commit (or roll back) together. The
 * transaction MUST run through inTransaction, which reports its commit to the delivery worker.
 */
export async function recordDomainEvents(
  trx: Transaction<FlagpostTables>,
  engine: Engine,
  events: readonly DomainEvent[] | undefined,
): Promise<void> {
  if (!events || events.length === 0) return;
  const types = [...new Set(events.map((e) => e.type))];
  // Asked by every email outcome, mostly of a system with no webhooks: compiled once per count of types.
  const query = compiledOnce(
    `${engine} subscribers ${types.length}`,
    (bind) =>
      trx
        .selectFrom("flagpost_webhook_subscriptions as s")
        .innerJoin("flagpost_webhooks as w", "w.id", "s.webhook_id")
        .select(["s.event_type", "s.webhook_id"])
        .where(
          "s.event_type",
          "in",
          types.map((_, i) => bind(String(i))),
        )
        .where("w.status", "=", "enabled"),
    { ...types },
  );
  const subscribers = (await trx.executeQuery<{ event_type: string; webhook_id: string }>(query)).rows;
  if (subscribers.length === 0) return;
  const byType = new Map<string, string[]>();
  for (const s of subscribers) byType.set(s.event_type, [...(byType.get(s.event_type) ?? []), s.webhook_id]);

  const eventRows: Insertable<WebhookEventsTable>[] = [];
  const deliveryRows: Insertable<WebhookDeliveriesTable>[] = [];
  for (const event of events) {
    const webhookIds = byType.get(event.type);
    if (!webhookIds) continue;
    const at = checkedEpochMs(event.createdAt, "event.createdAt");
    eventRows.push({ id: event.id, type: event.type, created_at: at, data: JSON.stringify(event.data) });
    for (const webhookId of webhookIds) {
      deliveryRows.push({
        id: uuidv7(at),
        webhook_id: webhookId,
        event_id: event.id,
        event_type: event.type,
        created_at: at,
        status: "pending",
        attempts: 0,
        next_attempt_at: at,
      });
    }
  }
  for (let i = 0; i < eventRows.length; i += INSERT_CHUNK)
    await trx
      .insertInto("flagpost_webhook_events")
      .values(eventRows.slice(i, i + INSERT_CHUNK))
      .execute();
  for (let i = 0; i < deliveryRows.length; i += INSERT_CHUNK)
    await trx
      .insertInto("flagpost_webhook_deliveries")
      .values(deliveryRows.slice(i, i + INSERT_CHUNK))
      .execute();
  if (deliveryRows.length > 0) markDeliveriesStored(trx);
}
