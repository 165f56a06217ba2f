import type { ExpressionBuilder, Kysely, Selectable } from "kysely";
import type { Engine } from "./dialect.js";
import type { FlagpostTables, WebhookDeliveriesTable } from "./tables.js";
import { inTransaction } from "./transaction.js";

type Db = Kysely<FlagpostTables>;
type Row = Selectable<WebhookDeliveriesTable>;

/** The lease, and one more attempt (each claim is one attempt). */
function claimSet(owner: string, leaseUntil: number) {
  return (eb: ExpressionBuilder<FlagpostTables, "flagpost_webhook_deliveries">) => ({
    lease_owner: owner,
    lease_until: leaseUntil,
    attempts: eb("attempts", "+", 1).$castTo<number>(),
  });
}

/**
 * Leases up to `limit` due deliveries, longest-due first: one UPDATE over a subquery on SQLite
 * (its single writer makes that atomic); FOR UPDATE SKIP LOCKED then UPDATE on PostgreSQL and
 * MySQL, so concurrent workers take different rows instead of queueing behind one another.
 */
export async function claimDueDeliveryRows(
  db: Db,
  engine: Engine,
  at: number,
  limit: number,
  leaseUntil: number,
  owner: string,
): Promise<Row[]> {
  const due = (d: Db) =>
    d
      .selectFrom("flagpost_webhook_deliveries")
      .select("id")
      .where("status", "in", ["pending", "attempting"])
      .where("next_attempt_at", "<=", at)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", at)]))
      .orderBy("next_attempt_at")
      .orderBy("id")
      .limit(limit);
  if (engine === "sqlite") {
    return db
      .updateTable("flagpost_webhook_deliveries")
      .set(claimSet(owner, leaseUntil))
      .where("id", "in", due(db))
      .returningAll()
      .execute();
  }
  return inTransaction(db, engine, async (trx) => {
    const ids = (await due(trx).forUpdate().skipLocked().execute()).map((r) => r.id);
    if (ids.length === 0) return [];
    const update = trx
      .updateTable("flagpost_webhook_deliveries")
      .set(claimSet(owner, leaseUntil))
      .where("id", "in", ids);
    if (engine === "postgres") return update.returningAll().execute();
    await update.execute();
    return trx.selectFrom("flagpost_webhook_deliveries").selectAll().where("id", "in", ids).execute();
  });
}

/** Extends to `leaseUntil` the leases `owner` still holds among `ids`; returns those ids. */
export async function renewDeliveryRows(
  db: Db,
  ids: readonly string[],
  owner: string,
  leaseUntil: number,
): Promise<string[]> {
  if (ids.length === 0) return [];
  await db
    .updateTable("flagpost_webhook_deliveries")
    .set({ lease_until: leaseUntil })
    .where("id", "in", [...ids])
    .where("lease_owner", "=", owner)
    .execute();
  return (
    await db
      .selectFrom("flagpost_webhook_deliveries")
      .select("id")
      .where("id", "in", [...ids])
      .where("lease_owner", "=", owner)
      .execute()
  ).map((r) => r.id);
}
