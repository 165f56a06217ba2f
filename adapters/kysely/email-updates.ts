import { type RawBuilder, sql } from "kysely";
import type {
  DomainEvent,
  EmailRecord,
  EmailReschedule,
  EmailRetry,
  EmailTransition,
  NewEmailEvent,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { Engine } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import { recordDomainEvents } from "./domain-events.js";
import { type EmailRow, type EmailUpdate, eventRow, toRecord, type Trx } from "./email-rows.js";
import { toNumber } from "./row-codec.js";
import { type Bind, compiledOnce } from "./compiled-once.js";

/**
 * The conditional UPDATEs behind transitions and retries. Each re-checks in its WHERE what the
 * caller expects (status, lease owner, no lease) and bumps `version`, which becomes the seq of
 * the event appended in the same transaction, so an email's events never interleave.
 */

export function transitionUpdate(trx: Trx, id: string, transition: EmailTransition): EmailUpdate {
  const sentAt = transition.sentAt === undefined ? undefined : checkedEpochMs(transition.sentAt, "sentAt");
  const deliveredAt =
    transition.deliveredAt === undefined ? undefined : checkedEpochMs(transition.deliveredAt, "deliveredAt");
  const update = trx
    .updateTable("flagpost_emails")
    .set((eb) => ({
      status: transition.to,
      lease_owner: null,
      lease_until: null,
      ...(transition.keepLastEvent ? {} : { last_event: transition.event.type }),
      version: eb("version", "+", 1).$castTo<number>(),
      // Timestamps are set once: an existing value wins.
      ...(sentAt === undefined ? {} : { sent_at: eb.fn.coalesce("sent_at", eb.val(sentAt)).$castTo<number>() }),
      ...(deliveredAt === undefined
        ? {}
        : { delivered_at: eb.fn.coalesce("delivered_at", eb.val(deliveredAt)).$castTo<number>() }),
      ...(transition.failureReason === undefined ? {} : { failure_reason: transition.failureReason }),
      ...(transition.providerMessageId === undefined ? {} : { provider_message_id: transition.providerMessageId }),
    }))
    .where("id", "=", id)
    .where("status", "in", [...transition.from]);
  return unleasedWhere(leaseWhere(update, transition.leaseOwner), unleasedMs(transition.unleasedAt));
}

/** Only while `owner` (a value, or a compiled-once slot) holds the lease; no condition when undefined. */
function leaseWhere(update: EmailUpdate, owner: string | undefined): EmailUpdate {
  return owner === undefined ? update : update.where("lease_owner", "=", owner);
}

/** Only while nobody holds the email at `atMs` (no lease, or one ended by then); no condition when undefined. */
function unleasedWhere(update: EmailUpdate, atMs: number | undefined): EmailUpdate {
  if (atMs === undefined) return update;
  return update.where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", atMs)]));
}

const unleasedMs = (at: number | undefined) => (at === undefined ? undefined : checkedEpochMs(at, "unleasedAt"));

/** A scheduled email's new time, while it is queued and nobody holds it. */
export function rescheduleUpdate(trx: Trx, id: string, change: EmailReschedule): EmailUpdate {
  const at = checkedEpochMs(change.scheduledAt, "scheduledAt");
  const update = trx
    .updateTable("flagpost_emails")
    .set((eb) => ({
      scheduled_at: at,
      next_attempt_at: at,
      lease_owner: null,
      lease_until: null,
      last_event: change.event.type,
      version: eb("version", "+", 1).$castTo<number>(),
    }))
    .where("id", "=", id)
    .where("status", "=", "queued")
    .where("scheduled_at", "is not", null);
  return unleasedWhere(update, unleasedMs(change.unleasedAt));
}

export function retryUpdate(trx: Trx, id: string, retry: EmailRetry): EmailUpdate {
  const nextAttemptAt = checkedEpochMs(retry.nextAttemptAt, "nextAttemptAt");
  return trx
    .updateTable("flagpost_emails")
    .set((eb) => ({
      next_attempt_at: nextAttemptAt,
      last_error: retry.lastError,
      lease_owner: null,
      lease_until: null,
      last_event: retry.event.type,
      version: eb("version", "+", 1).$castTo<number>(),
    }))
    .where("id", "=", id)
    .where("status", "=", "queued")
    .where("lease_owner", "=", retry.leaseOwner);
}

/** Runs the conditional UPDATE; the row's new version when it changed the row, else undefined. */
export async function updatedVersion(
  trx: Trx,
  engine: Engine,
  id: string,
  update: EmailUpdate,
): Promise<number | undefined> {
  if (!engineTraits(engine).updateReturning) {
    const result = await update.executeTakeFirst();
    if (result.numUpdatedRows === 0n) return undefined;
    const row = await trx.selectFrom("flagpost_emails").select("version").where("id", "=", id).executeTakeFirst();
    return row && toNumber(row.version);
  }
  const row = await update.returning("version").executeTakeFirst();
  return row && toNumber(row.version);
}

/**
 * Runs the conditional UPDATE (which bumps `version`), and when it changed the row, appends the
 * event with seq = the new version and stores the domain events. SQLite and PostgreSQL read the
 * row back with RETURNING; MySQL, which lacks it, reads it inside the transaction (the UPDATE
 * holds the row lock). The UPDATE always changes `version`, so MySQL's affected-row count is
 * reliable here.
 */
export async function updateAndAppend(
  trx: Trx,
  engine: Engine,
  id: string,
  update: EmailUpdate,
  event: NewEmailEvent,
  domainEvents?: readonly DomainEvent[],
): Promise<EmailRecord | undefined> {
  let row: EmailRow | undefined;
  if (!engineTraits(engine).updateReturning) {
    const result = await update.executeTakeFirst();
    if (result.numUpdatedRows === 0n) return undefined;
    row = await trx.selectFrom("flagpost_emails").selectAll().where("id", "=", id).executeTakeFirst();
  } else {
    row = await update.returningAll().executeTakeFirst();
  }
  if (!row) return undefined;
  await trx
    .insertInto("flagpost_email_events")
    .values(eventRow(id, toNumber(row.version), event))
    .execute();
  await recordDomainEvents(trx, engine, domainEvents);
  return toRecord(trx, row);
}

/** What makes transitions shareable by one UPDATE: everything but the per-email timestamps and provider id. */
export function transitionKind(t: EmailTransition): string {
  return JSON.stringify([
    t.to,
    t.from,
    t.leaseOwner ?? null,
    t.unleasedAt ?? null,
    t.event.type,
    t.failureReason ?? null,
    t.sentAt !== undefined,
    t.deliveredAt !== undefined,
    t.providerMessageId !== undefined,
  ]);
}

/**
 * One UPDATE … RETURNING for transitions of one kind ({@link transitionKind}; SQLite and
 * PostgreSQL): the new version of each row it changed, by id. The rows are found by id: the
 * status it re-checks is kept off the status index (engine-traits.ts, `notIndexed`). Its text
 * depends only on what the kind has and on the number of rows, so it is compiled once per such
 * shape (compiled-once.ts) and afterwards only given the values.
 */
export async function groupTransition(
  trx: Trx,
  engine: Engine,
  items: readonly { id: string; transition: EmailTransition }[],
): Promise<Map<string, number>> {
  const t = items[0]!.transition;
  const values: Record<string, unknown> = {
    to: t.to,
    lastEvent: t.event.type,
    leaseOwner: t.leaseOwner,
    failureReason: t.failureReason,
    unleasedAt: unleasedMs(t.unleasedAt),
  };
  t.from.forEach((from, i) => (values[`from ${i}`] = from));
  items.forEach(({ id, transition }, i) => {
    values[`id ${i}`] = id;
    if (t.sentAt !== undefined) values[`sentAt ${i}`] = checkedEpochMs(transition.sentAt!, "sentAt");
    if (t.deliveredAt !== undefined)
      values[`deliveredAt ${i}`] = checkedEpochMs(transition.deliveredAt!, "deliveredAt");
    values[`providerMessageId ${i}`] = transition.providerMessageId ?? null;
  });
  const shape = [t.sentAt, t.deliveredAt, t.failureReason, t.providerMessageId, t.leaseOwner, t.unleasedAt]
    .map((value) => (value === undefined ? "-" : "+"))
    .join("");
  const key = `${engine} group transition ${shape} ${t.from.length} ${items.length}`;
  const query = compiledOnce(key, (bind) => groupUpdate(trx, engine, t, items.length, bind), values);
  const { rows } = await trx.executeQuery<{ id: string; version: number | string | bigint }>(query);
  return new Map(rows.map((row) => [row.id, toNumber(row.version)]));
}

/** {@link groupTransition}'s statement for `count` rows, with slots where its values go. */
function groupUpdate(trx: Trx, engine: Engine, t: EmailTransition, count: number, bind: Bind) {
  const slots = Array.from({ length: count }, (_, i) => i);
  /** CASE id WHEN … THEN … END: each row's own value, typed as the column. */
  const byId = <T>(name: string, cast: boolean): RawBuilder<T> =>
    sql<T>`case ${sql.ref("id")} ${sql.join(
      slots.map((i) =>
        cast
          ? sql`when ${bind(`id ${i}`)} then cast(${bind(`${name} ${i}`)} as bigint)`
          : sql`when ${bind(`id ${i}`)} then ${bind(`${name} ${i}`)}`,
      ),
      sql` `,
    )} end`;
  let update = trx
    .updateTable("flagpost_emails")
    .set((eb) => ({
      status: bind("to"),
      lease_owner: null,
      lease_until: null,
      last_event: bind("lastEvent"),
      version: eb("version", "+", 1).$castTo<number>(),
      // Timestamps are set once: an existing value wins.
      ...(t.sentAt === undefined
        ? {}
        : { sent_at: eb.fn.coalesce("sent_at", byId<number>("sentAt", true)).$castTo<number>() }),
      ...(t.deliveredAt === undefined
        ? {}
        : { delivered_at: eb.fn.coalesce("delivered_at", byId<number>("deliveredAt", true)).$castTo<number>() }),
      ...(t.failureReason === undefined ? {} : { failure_reason: bind("failureReason") }),
      ...(t.providerMessageId === undefined ? {} : { provider_message_id: byId<string>("providerMessageId", false) }),
    }))
    .where(
      "id",
      "in",
      slots.map((i) => bind(`id ${i}`)),
    )
    .where(
      engineTraits(engine).notIndexed<string>("status"),
      "in",
      t.from.map((_, i) => bind(`from ${i}`)),
    );
  update = leaseWhere(update, t.leaseOwner === undefined ? undefined : bind("leaseOwner"));
  update = unleasedWhere(update, t.unleasedAt === undefined ? undefined : bind("unleasedAt"));
  return update.returning(["id", "version"]);
}
