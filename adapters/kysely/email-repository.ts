import {
  type Insertable,
  type Kysely,
  type RawBuilder,
  type Selectable,
  sql,
  type Transaction,
  type UpdateQueryBuilder,
  type UpdateResult,
} from "kysely";
import type {
  EmailContent,
  EmailEvent,
  EmailEventType,
  EmailOutcomeWrite,
  EmailRecord,
  EmailRepository,
  EmailRetry,
  EmailStatus,
  EmailTransition,
  DomainEvent,
  IdempotencyCompletion,
  NewEmailEvent,
} from "../../src/storage/index.js";
import type { Engine } from "./dialect.js";
import { guard } from "./driver-errors.js";
import { recordDomainEvents } from "./domain-events.js";
import { completeClaim } from "./idempotency-repository.js";
import { toEpochMs, toIso, toNumber } from "./row-codec.js";
import type { EmailEventsTable, EmailsTable, FlagpostTables } from "./tables.js";
import { claimDueRows, type JobTableSpec, listLeaseOwners, releaseLeases, renewLeases } from "./job-claims.js";
import { inTransaction } from "./transaction.js";

type Db = Kysely<FlagpostTables>;
type Trx = Transaction<FlagpostTables>;
type EmailRow = Selectable<EmailsTable>;
type EmailUpdate = UpdateQueryBuilder<FlagpostTables, "flagpost_emails", "flagpost_emails", UpdateResult>;

/** The outbox as a jobs-shaped table: due while queued. */
const OUTBOX: JobTableSpec = { table: "flagpost_emails", ready: (eb) => eb("status", "=", "queued") };

/** Rows per INSERT statement: far below every engine's limit on bound parameters. */
const INSERT_CHUNK = 100;

function optionalIso(value: number | string | bigint | null): string | undefined {
  return value === null ? undefined : toIso(value);
}

function toRecord(row: EmailRow): EmailRecord {
  const record: EmailRecord = {
    id: row.id,
    content: JSON.parse(row.content) as EmailContent,
    status: row.status as EmailStatus,
    messageId: row.message_id,
    createdAt: toIso(row.created_at),
    attempts: toNumber(row.attempts),
    nextAttemptAt: toIso(row.next_attempt_at),
  };
  const optional = {
    scheduledAt: optionalIso(row.scheduled_at),
    sentAt: optionalIso(row.sent_at),
    deliveredAt: optionalIso(row.delivered_at),
    lastError: row.last_error ?? undefined,
    leaseOwner: row.lease_owner ?? undefined,
    leaseUntil: optionalIso(row.lease_until),
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) (record as unknown as Record<string, unknown>)[key] = value;
  return record;
}

function toRow(email: EmailRecord): Insertable<EmailsTable> {
  return {
    id: email.id,
    status: email.status,
    content: JSON.stringify(email.content),
    message_id: email.messageId,
    created_at: toEpochMs(email.createdAt, "createdAt"),
    scheduled_at: email.scheduledAt === undefined ? null : toEpochMs(email.scheduledAt, "scheduledAt"),
    sent_at: email.sentAt === undefined ? null : toEpochMs(email.sentAt, "sentAt"),
    delivered_at: email.deliveredAt === undefined ? null : toEpochMs(email.deliveredAt, "deliveredAt"),
    attempts: email.attempts,
    next_attempt_at: toEpochMs(email.nextAttemptAt, "nextAttemptAt"),
    last_error: email.lastError ?? null,
    lease_owner: email.leaseOwner ?? null,
    lease_until: email.leaseUntil === undefined ? null : toEpochMs(email.leaseUntil, "leaseUntil"),
    version: 1,
  };
}

function eventRow(emailId: string, seq: number, event: NewEmailEvent): Insertable<EmailEventsTable> {
  return {
    email_id: emailId,
    seq,
    type: event.type,
    at: toEpochMs(event.at, "event.at"),
    detail: event.detail === undefined ? null : JSON.stringify(event.detail),
  };
}

function toEvent(row: Selectable<EmailEventsTable>): EmailEvent {
  const event: EmailEvent = {
    emailId: row.email_id,
    seq: toNumber(row.seq),
    type: row.type as EmailEventType,
    at: toIso(row.at),
  };
  if (row.detail !== null) event.detail = JSON.parse(row.detail) as Record<string, unknown>;
  return event;
}

/**
 * The outbox in `flagpost_emails` and the history in `flagpost_email_events`. Races are decided
 * by the engine: claims go through job-claims.ts (SKIP LOCKED on PostgreSQL and MySQL, one
 * statement under SQLite's single writer); transitions are UPDATEs whose WHERE re-checks the
 * expected status and lease owner, and the event is appended in the same transaction with the
 * seq the UPDATE gave the row (`version`), so events of one email never interleave.
 */
export class KyselyEmailRepository implements EmailRepository {
  readonly #db: Db;
  readonly #engine: Engine;

  constructor(db: Db, engine: Engine) {
    this.#db = db;
    this.#engine = engine;
  }

  async insertEmails(emails: EmailRecord[], completion?: IdempotencyCompletion): Promise<void> {
    const rows = emails.map(toRow);
    const events = emails.map((e) => eventRow(e.id, 1, { type: "queued", at: e.createdAt }));
    await guard(
      this.#engine,
      "store the emails",
      () =>
        inTransaction(this.#db, this.#engine, async (trx) => {
          for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
            await trx
              .insertInto("flagpost_emails")
              .values(rows.slice(i, i + INSERT_CHUNK))
              .execute();
            await trx
              .insertInto("flagpost_email_events")
              .values(events.slice(i, i + INSERT_CHUNK))
              .execute();
          }
          if (completion) await completeClaim(trx, this.#engine, completion);
        }),
      "An email with that id already exists",
    );
  }

  async getEmail(id: string): Promise<EmailRecord | undefined> {
    return guard(this.#engine, "read the email", async () => {
      const row = await this.#db.selectFrom("flagpost_emails").selectAll().where("id", "=", id).executeTakeFirst();
      return row && toRecord(row);
    });
  }

  async claimDueEmails(now: string, limit: number, leaseMs: number, owner: string): Promise<EmailRecord[]> {
    const at = toEpochMs(now, "now");
    if (limit <= 0) return [];
    return guard(this.#engine, "claim due emails", async () => {
      const rows = await claimDueRows<EmailRow>(this.#db, this.#engine, OUTBOX, at, limit, at + leaseMs, owner);
      return rows
        .map(toRecord)
        .sort((a, b) =>
          a.nextAttemptAt < b.nextAttemptAt ? -1 : a.nextAttemptAt > b.nextAttemptAt ? 1 : a.id < b.id ? -1 : 1,
        );
    });
  }

  async renewEmailLeases(ids: readonly string[], owner: string, leaseUntil: string): Promise<string[]> {
    const until = toEpochMs(leaseUntil, "leaseUntil");
    return guard(this.#engine, "renew the email leases", () =>
      renewLeases(this.#db, this.#engine, "flagpost_emails", [...new Set(ids)], owner, until),
    );
  }

  async listEmailLeaseOwners(now: string): Promise<string[]> {
    const at = toEpochMs(now, "now");
    return guard(this.#engine, "list the email lease owners", () => listLeaseOwners(this.#db, OUTBOX, at));
  }

  async releaseEmailLeases(owners: readonly string[]): Promise<number> {
    return guard(this.#engine, "release the email leases", () => releaseLeases(this.#db, OUTBOX, owners));
  }

  async transitionEmail(id: string, transition: EmailTransition): Promise<EmailRecord | undefined> {
    if (transition.from.length === 0) return undefined;
    return guard(this.#engine, "update the email", () =>
      inTransaction(this.#db, this.#engine, (trx) =>
        this.#updateAndAppend(
          trx,
          id,
          this.#transitionUpdate(trx, id, transition),
          transition.event,
          transition.events,
        ),
      ),
    );
  }

  async scheduleRetry(id: string, retry: EmailRetry): Promise<EmailRecord | undefined> {
    return guard(this.#engine, "schedule the email's retry", () =>
      inTransaction(this.#db, this.#engine, (trx) =>
        this.#updateAndAppend(trx, id, this.#retryUpdate(trx, id, retry), retry.event, retry.events),
      ),
    );
  }

  /**
   * One transaction: the conditional UPDATEs, then every event in one multi-row INSERT. On SQLite
   * and PostgreSQL, transitions of the same kind (same target, expected statuses and lease owner:
   * a worker's "sent" outcomes, say) are one UPDATE for the group, each row's timestamps chosen by
   * id, its RETURNING naming the rows it changed; retries, and everything on MySQL (no
   * RETURNING), are one UPDATE per email. Rows are taken in id order, so two batches (or a batch
   * and a report) never wait for each other in a cycle.
   */
  async recordOutcomes(outcomes: readonly EmailOutcomeWrite[]): Promise<boolean[]> {
    if (outcomes.length === 0) return [];
    const order = outcomes.map((o, i) => ({ o, i })).sort((a, b) => (a.o.id < b.o.id ? -1 : a.o.id > b.o.id ? 1 : 0));
    return guard(this.#engine, "record the outcomes", () =>
      inTransaction(this.#db, this.#engine, async (trx) => {
        const applied: boolean[] = new Array(outcomes.length).fill(false);
        const events: Insertable<EmailEventsTable>[] = [];
        const domainEvents: DomainEvent[] = [];
        const single: { o: EmailOutcomeWrite; i: number }[] = [];
        const groups = new Map<string, { o: { id: string; transition: EmailTransition }; i: number }[]>();
        for (const entry of order) {
          const { o } = entry;
          if (!("transition" in o)) single.push(entry);
          else if (o.transition.from.length === 0) continue;
          else if (this.#engine === "mysql") single.push(entry);
          else {
            const t = o.transition;
            const kind = JSON.stringify([
              t.to,
              t.from,
              t.leaseOwner ?? null,
              t.sentAt !== undefined,
              t.deliveredAt !== undefined,
            ]);
            groups.set(kind, [...(groups.get(kind) ?? []), { o, i: entry.i }]);
          }
        }
        for (const group of groups.values()) {
          const versions = await this.#groupTransition(
            trx,
            group.map((g) => g.o),
          );
          for (const { o, i } of group) {
            const version = versions.get(o.id);
            if (version === undefined) continue;
            applied[i] = true;
            events.push(eventRow(o.id, version, o.transition.event));
            domainEvents.push(...(o.transition.events ?? []));
          }
        }
        for (const { o, i } of single) {
          const update =
            "transition" in o ? this.#transitionUpdate(trx, o.id, o.transition) : this.#retryUpdate(trx, o.id, o.retry);
          const version = await this.#updatedVersion(trx, o.id, update);
          if (version === undefined) continue;
          applied[i] = true;
          const change = "transition" in o ? o.transition : o.retry;
          events.push(eventRow(o.id, version, change.event));
          domainEvents.push(...(change.events ?? []));
        }
        for (let i = 0; i < events.length; i += INSERT_CHUNK)
          await trx
            .insertInto("flagpost_email_events")
            .values(events.slice(i, i + INSERT_CHUNK))
            .execute();
        await recordDomainEvents(trx, domainEvents);
        return applied;
      }),
    );
  }

  /**
   * One UPDATE … RETURNING for transitions that differ only in their timestamps (SQLite and
   * PostgreSQL): the new version of each row it changed, by id.
   */
  async #groupTransition(trx: Trx, items: { id: string; transition: EmailTransition }[]): Promise<Map<string, number>> {
    const t = items[0]!.transition;
    const ids = items.map((item) => item.id);
    /** CASE id WHEN … THEN … END: each row's own value, typed as the column. */
    const byId = (pick: (transition: EmailTransition) => string | undefined, field: string): RawBuilder<number> =>
      sql<number>`case ${sql.ref("id")} ${sql.join(
        items.map((item) => sql`when ${item.id} then cast(${toEpochMs(pick(item.transition)!, field)} as bigint)`),
        sql` `,
      )} end`;
    let update = trx
      .updateTable("flagpost_emails")
      .set((eb) => ({
        status: t.to,
        lease_owner: null,
        lease_until: null,
        version: eb("version", "+", 1).$castTo<number>(),
        // Timestamps are set once: an existing value wins.
        ...(t.sentAt === undefined
          ? {}
          : {
              sent_at: eb.fn
                .coalesce(
                  "sent_at",
                  byId((x) => x.sentAt, "sentAt"),
                )
                .$castTo<number>(),
            }),
        ...(t.deliveredAt === undefined
          ? {}
          : {
              delivered_at: eb.fn
                .coalesce(
                  "delivered_at",
                  byId((x) => x.deliveredAt, "deliveredAt"),
                )
                .$castTo<number>(),
            }),
      }))
      .where("id", "in", ids)
      .where("status", "in", [...t.from]);
    if (t.leaseOwner !== undefined) update = update.where("lease_owner", "=", t.leaseOwner);
    const rows = await update.returning(["id", "version"]).execute();
    return new Map(rows.map((row) => [row.id, toNumber(row.version)]));
  }

  #transitionUpdate(trx: Trx, id: string, transition: EmailTransition): EmailUpdate {
    const sentAt = transition.sentAt === undefined ? undefined : toEpochMs(transition.sentAt, "sentAt");
    const deliveredAt =
      transition.deliveredAt === undefined ? undefined : toEpochMs(transition.deliveredAt, "deliveredAt");
    let update = trx
      .updateTable("flagpost_emails")
      .set((eb) => ({
        status: transition.to,
        lease_owner: null,
        lease_until: null,
        version: eb("version", "+", 1).$castTo<number>(),
        // Timestamps are set once: an existing value wins.
        ...(sentAt === undefined ? {} : { sent_at: eb.fn.coalesce("sent_at", eb.val(sentAt)).$castTo<number>() }),
        ...(deliveredAt === undefined
          ? {}
          : { delivered_at: eb.fn.coalesce("delivered_at", eb.val(deliveredAt)).$castTo<number>() }),
      }))
      .where("id", "=", id)
      .where("status", "in", [...transition.from]);
    if (transition.leaseOwner !== undefined) update = update.where("lease_owner", "=", transition.leaseOwner);
    return update;
  }

  #retryUpdate(trx: Trx, id: string, retry: EmailRetry): EmailUpdate {
    const nextAttemptAt = toEpochMs(retry.nextAttemptAt, "nextAttemptAt");
    return trx
      .updateTable("flagpost_emails")
      .set((eb) => ({
        next_attempt_at: nextAttemptAt,
        last_error: retry.lastError,
        lease_owner: null,
        lease_until: null,
        version: eb("version", "+", 1).$castTo<number>(),
      }))
      .where("id", "=", id)
      .where("status", "=", "queued")
      .where("lease_owner", "=", retry.leaseOwner);
  }

  /** Runs the conditional UPDATE; the row's new version when it changed the row, else undefined. */
  async #updatedVersion(trx: Trx, id: string, update: EmailUpdate): Promise<number | undefined> {
    if (this.#engine === "mysql") {
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
   * event with seq = the new version and stores the domain events. SQLite and PostgreSQL read the row back with RETURNING;
   * MySQL, which lacks it, reads it inside the transaction (the UPDATE holds the row lock). The
   * UPDATE always changes `version`, so MySQL's affected-row count is reliable here.
   */
  async #updateAndAppend(
    trx: Trx,
    id: string,
    update: EmailUpdate,
    event: NewEmailEvent,
    domainEvents?: readonly DomainEvent[],
  ): Promise<EmailRecord | undefined> {
    let row: EmailRow | undefined;
    if (this.#engine === "mysql") {
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
    await recordDomainEvents(trx, domainEvents);
    return toRecord(row);
  }

  async listEmailEvents(id: string): Promise<EmailEvent[]> {
    return guard(this.#engine, "read the email's events", async () => {
      const rows = await this.#db
        .selectFrom("flagpost_email_events")
        .selectAll()
        .where("email_id", "=", id)
        .orderBy("seq")
        .execute();
      return rows.map(toEvent);
    });
  }
}
