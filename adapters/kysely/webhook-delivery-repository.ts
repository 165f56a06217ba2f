import type { Insertable, Selectable, Transaction, Updateable } from "kysely";
import type {
  DeliveryClaimCap,
  AttemptRecord,
  ClaimedDelivery,
  DeliveryOutcome,
  DeliveryRecord,
  DomainEvent,
  PageRequest,
  WebhookDeliveryRepository,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { StorageActions } from "./storage-errors.js";
import type { FlagpostTables, WebhookAttemptsTable, WebhookDeliveriesTable } from "./tables.js";
import { claimDueRows, type JobTableSpec, listLeaseOwners, releaseLeases, renewLeases } from "./job-claims.js";
import { inTransaction, onDeliveriesCommitted } from "./transaction.js";
import { pageQuery, toWebhook } from "./webhook-repository.js";
import { attemptRow, toAttempt, toDelivery, toEvent } from "./webhook-delivery-rows.js";
import { EngineRepository } from "./engine-repository.js";
import type { Db } from "./tables.js";

type Trx = Transaction<FlagpostTables>;
type DeliveryRow = Selectable<WebhookDeliveriesTable>;

const INSERT_CHUNK = 100;

/** The deliveries still to be made: what claims, renewals and lease releases are about. */
const DELIVERIES: JobTableSpec = {
  table: "flagpost_webhook_deliveries",
  ready: (eb) => eb("status", "in", ["pending", "attempting"]),
};

/**
 * Deliveries in `flagpost_webhook_deliveries` (stored by recordDomainEvents with the change that
 * caused them), events in `flagpost_webhook_events`, attempts in `flagpost_webhook_attempts`.
 */
export class KyselyWebhookDeliveryRepository extends EngineRepository implements WebhookDeliveryRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyWebhookDeliveryRepository> = {
    claimDueDeliveries: "claim due webhook deliveries",
    renewDeliveryLeases: "renew webhook delivery leases",
    listDeliveryLeaseOwners: "list the webhook delivery lease owners",
    releaseDeliveryLeases: "release webhook delivery leases",
    recordDeliveryOutcomes: "record webhook delivery outcomes",
    listDeliveries: "list webhook deliveries",
    getDelivery: "read the webhook delivery",
    replayDelivery: "replay the webhook delivery",
    listAttempts: "list webhook attempts",
    countPendingDeliveries: "count pending webhook deliveries",
    onDeliveriesStored: "subscribe to stored deliveries",
  };

  async claimDueDeliveries(
    now: number,
    limit: number,
    leaseMs: number,
    owner: string,
    cap?: DeliveryClaimCap,
  ): Promise<ClaimedDelivery[]> {
    const at = checkedEpochMs(now, "now");
    if (limit <= 0) return [];
    const quota = cap && {
      column: "webhook_id",
      full: [...cap.busy].filter(([, held]) => held >= cap.perWebhook).map(([id]) => id),
      room: (id: string) => cap.perWebhook - (cap.busy.get(id) ?? 0),
    };
    const rows = await claimDueRows<DeliveryRow>(
      this.db,
      this.engine,
      DELIVERIES,
      at,
      limit,
      at + leaseMs,
      owner,
      undefined,
      quota,
    );
    if (rows.length === 0) return [];
    const events = await this.db
      .selectFrom("flagpost_webhook_events")
      .selectAll()
      .where("id", "in", [...new Set(rows.map((r) => r.event_id))])
      .execute();
    const webhooks = await this.db
      .selectFrom("flagpost_webhooks")
      .selectAll()
      .where("id", "in", [...new Set(rows.map((r) => r.webhook_id))])
      .execute();
    const eventById = new Map(events.map((e) => [e.id, toEvent(e)]));
    const webhookById = new Map(webhooks.map((w) => [w.id, toWebhook(w)]));
    const claimed: ClaimedDelivery[] = [];
    const orphans: DeliveryRow[] = [];
    for (const row of rows) {
      const event = eventById.get(row.event_id);
      const webhook = webhookById.get(row.webhook_id);
      if (event && webhook) claimed.push({ ...toDelivery(row), event, webhook });
      else orphans.push(row);
    }
    // Stored while its endpoint was being deleted: nothing can be sent anymore.
    if (orphans.length > 0)
      await this.db
        .deleteFrom("flagpost_webhook_deliveries")
        .where(
          "id",
          "in",
          orphans.map((o) => o.id),
        )
        .execute();
    return claimed.sort((a, b) =>
      a.nextAttemptAt < b.nextAttemptAt ? -1 : a.nextAttemptAt > b.nextAttemptAt ? 1 : a.id < b.id ? -1 : 1,
    );
  }

  async renewDeliveryLeases(ids: readonly string[], owner: string, until: number): Promise<string[]> {
    const at = checkedEpochMs(until, "until");
    return renewLeases(this.db, this.engine, DELIVERIES.table, [...new Set(ids)], owner, at);
  }

  async listDeliveryLeaseOwners(now: number): Promise<string[]> {
    const at = checkedEpochMs(now, "now");
    return listLeaseOwners(this.db, DELIVERIES, at);
  }

  async releaseDeliveryLeases(owners: readonly string[]): Promise<number> {
    return releaseLeases(this.db, DELIVERIES, owners);
  }

  async countPendingDeliveries(): Promise<number> {
    const row = await this.db
      .selectFrom("flagpost_webhook_deliveries")
      .where("status", "in", ["pending", "attempting"])
      .select((eb) => eb.fn.countAll<string | number>().as("pending"))
      .executeTakeFirst();
    return Number(row?.pending ?? 0);
  }

  onDeliveriesStored(listener: () => void): () => void {
    return onDeliveriesCommitted(this.db, listener);
  }

  /**
   * One transaction: a conditional UPDATE per delivery (rows taken in key order, so two writers
   * never wait on each other in a cycle), the attempts in one multi-row INSERT, then each
   * endpoint's health once, in id order.
   */
  async recordDeliveryOutcomes(outcomes: readonly DeliveryOutcome[]): Promise<boolean[]> {
    if (outcomes.length === 0) return [];
    const order = outcomes.map((o, i) => ({ o, i })).sort((a, b) => (a.o.id < b.o.id ? -1 : a.o.id > b.o.id ? 1 : 0));
    return inTransaction(this.db, this.engine, async (trx) => {
      const applied: boolean[] = new Array(outcomes.length).fill(false);
      const attempts: Insertable<WebhookAttemptsTable>[] = [];
      const health = new Map<string, NonNullable<DeliveryOutcome["endpoint"]>>();
      for (const { o, i } of order) {
        if (!(await this.#applyOutcome(trx, o))) continue;
        applied[i] = true;
        if (o.attempt) attempts.push(attemptRow(o.attempt));
        if (o.endpoint) health.set(o.webhookId, o.endpoint);
      }
      for (let i = 0; i < attempts.length; i += INSERT_CHUNK)
        await trx
          .insertInto("flagpost_webhook_attempts")
          .values(attempts.slice(i, i + INSERT_CHUNK))
          .execute();
      for (const id of [...health.keys()].sort()) await this.#updateHealth(trx, id, health.get(id)!);
      return applied;
    });
  }

  async #applyOutcome(trx: Trx, o: DeliveryOutcome): Promise<boolean> {
    const set: Updateable<WebhookDeliveriesTable> = { status: o.next.status, lease_owner: null, lease_until: null };
    if (o.next.status === "attempting") set.next_attempt_at = checkedEpochMs(o.next.nextAttemptAt, "nextAttemptAt");
    if (o.attempt) set.last_attempt_at = checkedEpochMs(o.attempt.sentAt, "attempt.sentAt");
    const result = await trx
      .updateTable("flagpost_webhook_deliveries")
      .set(set)
      .where("id", "=", o.id)
      .where("lease_owner", "=", o.leaseOwner)
      .executeTakeFirst();
    // The lease owner always changes (to null), so MySQL's affected-row count is reliable too.
    return result.numUpdatedRows > 0n;
  }

  async #updateHealth(trx: Trx, id: string, health: NonNullable<DeliveryOutcome["endpoint"]>): Promise<void> {
    if ("succeeded" in health) {
      await trx
        .updateTable("flagpost_webhooks")
        .set({ failing_since: null })
        .where("id", "=", id)
        .where("failing_since", "is not", null)
        .execute();
      return;
    }
    const failedAt = checkedEpochMs(health.failedAt, "failedAt");
    await trx
      .updateTable("flagpost_webhooks")
      .set((eb) => ({ failing_since: eb.fn.coalesce("failing_since", eb.val(failedAt)).$castTo<number>() }))
      .where("id", "=", id)
      .execute();
    await trx
      .updateTable("flagpost_webhooks")
      .set({ status: "disabled" })
      .where("id", "=", id)
      .where("status", "=", "enabled")
      .where("failing_since", "<=", checkedEpochMs(health.disableIfFailingSince, "disableIfFailingSince"))
      .execute();
  }

  async listDeliveries(webhookId: string, page: PageRequest): Promise<DeliveryRecord[]> {
    const base = this.db.selectFrom("flagpost_webhook_deliveries").selectAll().where("webhook_id", "=", webhookId);
    const { query, reversed } = pageQuery(base, "event_id", page);
    const rows = (await query.execute()).map(toDelivery);
    return reversed ? rows.reverse() : rows;
  }

  async getDelivery(
    webhookId: string,
    eventId: string,
  ): Promise<{ delivery: DeliveryRecord; event: DomainEvent } | undefined> {
    const row = await this.#delivery(this.db, webhookId, eventId);
    if (!row) return undefined;
    const event = await this.db
      .selectFrom("flagpost_webhook_events")
      .selectAll()
      .where("id", "=", eventId)
      .executeTakeFirst();
    return event && { delivery: toDelivery(row), event: toEvent(event) };
  }

  async replayDelivery(webhookId: string, eventId: string, now: number): Promise<DeliveryRecord | undefined> {
    const at = checkedEpochMs(now, "now");
    return inTransaction(this.db, this.engine, async (trx) => {
      const delivery = trx
        .updateTable("flagpost_webhook_deliveries")
        .where("webhook_id", "=", webhookId)
        .where("event_id", "=", eventId);
      await delivery.set({ status: "pending", attempts: 0, next_attempt_at: at }).execute();
      // A running lease stays: its holder's outcome still applies (see the port).
      await delivery
        .set({ lease_owner: null, lease_until: null })
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", at)]))
        .execute();
      const row = await this.#delivery(trx, webhookId, eventId);
      return row && toDelivery(row);
    });
  }

  async listAttempts(webhookId: string, eventId: string, page: PageRequest): Promise<AttemptRecord[]> {
    const delivery = await this.#delivery(this.db, webhookId, eventId);
    if (!delivery) return [];
    const base = this.db.selectFrom("flagpost_webhook_attempts").selectAll().where("delivery_id", "=", delivery.id);
    const { query, reversed } = pageQuery(base, "id", page);
    const rows = (await query.execute()).map(toAttempt);
    return reversed ? rows.reverse() : rows;
  }

  #delivery(db: Db | Trx, webhookId: string, eventId: string): Promise<DeliveryRow | undefined> {
    return db
      .selectFrom("flagpost_webhook_deliveries")
      .selectAll()
      .where("webhook_id", "=", webhookId)
      .where("event_id", "=", eventId)
      .executeTakeFirst();
  }
}
