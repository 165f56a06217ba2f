import type { ExpressionBuilder, Selectable, SelectQueryBuilder, Transaction, Updateable, UpdateObject } from "kysely";
import type {
  PageRequest,
  SecretRotation,
  WebhookChanges,
  WebhookRecord,
  WebhookRepository,
  WebhookStatus,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { AnyDatabase } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import type { StorageActions } from "./storage-errors.js";
import { toNumber } from "./row-codec.js";
import type { FlagpostTables, WebhooksTable } from "./tables.js";
import { inTransaction } from "./transaction.js";
import { EngineRepository } from "./engine-repository.js";

type Trx = Transaction<FlagpostTables>;

export function toWebhook(row: Selectable<WebhooksTable>): WebhookRecord {
  const record: WebhookRecord = {
    id: row.id,
    endpoint: row.endpoint,
    events: JSON.parse(row.events) as string[],
    status: row.status as WebhookStatus,
    secret: row.secret,
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
  if (row.previous_secret !== null && row.previous_secret_until !== null) {
    record.previousSecret = row.previous_secret;
    record.previousSecretExpiresAt = toNumber(row.previous_secret_until);
  }
  if (row.failing_since !== null) record.failingSince = toNumber(row.failing_since);
  return record;
}

async function subscribe(trx: Trx, id: string, events: readonly string[]): Promise<void> {
  const types = [...new Set(events)];
  if (types.length > 0)
    await trx
      .insertInto("flagpost_webhook_subscriptions")
      .values(types.map((event_type) => ({ event_type, webhook_id: id })))
      .execute();
}

/** A page of rows newest first by id; `before` reads upwards, then the page is turned round. */
export function pageQuery<O>(
  query: SelectQueryBuilder<AnyDatabase, AnyDatabase, O>,
  column: string,
  page: PageRequest,
): { query: SelectQueryBuilder<AnyDatabase, AnyDatabase, O>; reversed: boolean } {
  let q = query;
  if (page.after !== undefined) q = q.where(column, "<", page.after);
  if (page.before !== undefined) q = q.where(column, ">", page.before);
  const reversed = page.before !== undefined && page.after === undefined;
  return { query: q.orderBy(column, reversed ? "asc" : "desc").limit(page.limit), reversed };
}

/** What an update of one endpoint row sets: values, or values computed from the row (a rotation). */
type WebhookSet =
  | UpdateObject<FlagpostTables, "flagpost_webhooks">
  | ((eb: ExpressionBuilder<FlagpostTables, "flagpost_webhooks">) => UpdateObject<FlagpostTables, "flagpost_webhooks">);

/** Endpoints in `flagpost_webhooks`, their subscriptions in `flagpost_webhook_subscriptions`. */
export class KyselyWebhookRepository extends EngineRepository implements WebhookRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyWebhookRepository> = {
    insertWebhook: {
      action: "store the webhook",
      conflict: (webhook) => `A webhook with id "${webhook.id}" already exists`,
    },
    getWebhook: "read the webhook",
    listWebhooks: "list webhooks",
    updateWebhook: "update the webhook",
    rotateSecret: "rotate the webhook's secret",
    deleteWebhook: "delete the webhook",
  };

  async insertWebhook(webhook: WebhookRecord): Promise<void> {
    const row = {
      id: webhook.id,
      endpoint: webhook.endpoint,
      events: JSON.stringify(webhook.events),
      status: webhook.status,
      secret: webhook.secret,
      previous_secret: webhook.previousSecret ?? null,
      previous_secret_until:
        webhook.previousSecretExpiresAt === undefined
          ? null
          : checkedEpochMs(webhook.previousSecretExpiresAt, "previousSecretExpiresAt"),
      created_at: checkedEpochMs(webhook.createdAt, "createdAt"),
      updated_at: checkedEpochMs(webhook.updatedAt, "updatedAt"),
      failing_since: webhook.failingSince === undefined ? null : checkedEpochMs(webhook.failingSince, "failingSince"),
    };
    await inTransaction(this.db, this.engine, async (trx) => {
      await trx.insertInto("flagpost_webhooks").values(row).execute();
      await subscribe(trx, webhook.id, webhook.events);
    });
  }

  async getWebhook(id: string): Promise<WebhookRecord | undefined> {
    const row = await this.db.selectFrom("flagpost_webhooks").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toWebhook(row);
  }

  async listWebhooks(page: PageRequest): Promise<WebhookRecord[]> {
    const { query, reversed } = pageQuery(this.db.selectFrom("flagpost_webhooks").selectAll(), "id", page);
    const rows = (await query.execute()).map(toWebhook);
    return reversed ? rows.reverse() : rows;
  }

  async updateWebhook(id: string, changes: WebhookChanges): Promise<WebhookRecord | undefined> {
    const set: Updateable<WebhooksTable> = { updated_at: checkedEpochMs(changes.updatedAt, "updatedAt") };
    if (changes.endpoint !== undefined) set.endpoint = changes.endpoint;
    if (changes.events !== undefined) set.events = JSON.stringify(changes.events);
    if (changes.status !== undefined) set.status = changes.status;
    if (changes.status === "enabled") set.failing_since = null;
    return inTransaction(this.db, this.engine, async (trx) => {
      const row = await this.#updateThenRead(trx, id, set);
      if (!row) return undefined;
      if (changes.events !== undefined) {
        await trx.deleteFrom("flagpost_webhook_subscriptions").where("webhook_id", "=", id).execute();
        await subscribe(trx, id, changes.events);
      }
      return toWebhook(row);
    });
  }

  async rotateSecret(id: string, rotation: SecretRotation): Promise<WebhookRecord | undefined> {
    return inTransaction(this.db, this.engine, (trx) =>
      this.#updateThenRead(trx, id, (eb) => ({
        previous_secret: eb.ref("secret"),
        previous_secret_until: checkedEpochMs(rotation.previousSecretExpiresAt, "previousSecretExpiresAt"),
        secret: rotation.secret,
        updated_at: checkedEpochMs(rotation.updatedAt, "updatedAt"),
      })).then((row) => row && toWebhook(row)),
    );
  }

  /** A locking read first (MySQL has no RETURNING, and "unknown" is then decided under the lock). */
  async #updateThenRead(trx: Trx, id: string, set: WebhookSet): Promise<Selectable<WebhooksTable> | undefined> {
    let read = trx.selectFrom("flagpost_webhooks").select("id").where("id", "=", id);
    read = engineTraits(this.engine).lockRows(read);
    if (!(await read.executeTakeFirst())) return undefined;
    await trx.updateTable("flagpost_webhooks").set(set).where("id", "=", id).execute();
    return trx.selectFrom("flagpost_webhooks").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async deleteWebhook(id: string): Promise<boolean> {
    return inTransaction(this.db, this.engine, async (trx) => {
      const result = await trx.deleteFrom("flagpost_webhooks").where("id", "=", id).executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await trx.deleteFrom("flagpost_webhook_subscriptions").where("webhook_id", "=", id).execute();
      await trx.deleteFrom("flagpost_webhook_deliveries").where("webhook_id", "=", id).execute();
      await trx.deleteFrom("flagpost_webhook_attempts").where("webhook_id", "=", id).execute();
      return true;
    });
  }
}
