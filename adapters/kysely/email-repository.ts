import type {
  ClaimEmailOptions,
  ClaimedEmail,
  DomainEvent,
  EmailClaimRequest,
  EmailEvent,
  EmailOutcomeWrite,
  EmailRecord,
  EmailRepository,
  EmailRetry,
  EmailListEntry,
  EmailReschedule,
  EmailTransition,
  IdempotencyCompletion,
  OutboxDepth,
  PageRequest,
  DomainReputationCounts,
  ReputationMark,
  RecordedOutcomesAndClaim,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { Insertable } from "kysely";
import { deleteOrphanSlices, splitContent, writeSlices } from "./email-content-slices.js";
import type { EmailEventsTable, EmailsTable } from "./tables.js";
import type { StorageActions } from "./storage-errors.js";
import { recordDomainEvents } from "./domain-events.js";
import {
  eventRow,
  firstEvent,
  INSERT_CHUNK,
  LIST_COLUMNS,
  toEvent,
  toListEntry,
  toRecord,
  toRow,
  type Trx,
} from "./email-rows.js";
import { claimEmails } from "./email-claims.js";
import { recordOutcomesIn } from "./email-outcomes.js";
import { outboxDepthOf } from "./email-outbox-depth.js";
import { rescheduleUpdate, retryUpdate, transitionUpdate, updateAndAppend } from "./email-updates.js";
import { completeClaim } from "./idempotency-repository.js";
import { countReputation, markReputation } from "./domain-reputation.js";
import { type JobTableSpec, listLeaseOwners, releaseLeases, renewLeases } from "./job-claims.js";
import { relaxTransaction, withRelaxedCommit, withSyncedCommit } from "./relaxed-durability.js";
import { inTransaction } from "./transaction.js";
import { insertRows } from "./compiled-once.js";
import type { AnyKysely } from "./dialect.js";
import { pageQuery } from "./webhook-repository.js";
import { EngineRepository } from "./engine-repository.js";

/**
 * How old a slice without its email must be before the purge deletes it: far longer than an
 * insert takes to write its slices and commit the row, so a slice still being written is kept.
 */
const ORPHAN_SLICE_AGE_MS = 60 * 60 * 1000;

/** The outbox as a jobs-shaped table: due while queued. */
const OUTBOX: JobTableSpec = { table: "flagpost_emails", ready: (eb) => eb("status", "=", "queued") };

/**
 * The outbox in `flagpost_emails` and the history in `flagpost_email_events`. Races are decided
 * by the engine: claims go through job-claims.ts (SKIP LOCKED on PostgreSQL and MySQL, one
 * statement under SQLite's single writer); transitions are UPDATEs whose WHERE re-checks the
 * expected status and lease owner (email-updates.ts), and the event is appended in the same
 * transaction with the seq the UPDATE gave the row (`version`), so events of one email never
 * interleave. A worker's outcomes are written together (email-outcomes.ts).
 */
export class KyselyEmailRepository extends EngineRepository implements EmailRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyEmailRepository> = {
    insertEmails: { action: "store the emails", conflict: () => "An email with that id already exists" },
    getEmail: "read the email",
    listEmails: "list the emails",
    rescheduleEmail: "reschedule the email",
    findEmailByProviderMessageId: "find the email by its provider id",
    claimDueEmails: "claim due emails",
    renewEmailLeases: "renew the email leases",
    outboxDepth: "count the outbox",
    listEmailLeaseOwners: "list the email lease owners",
    releaseEmailLeases: "release the email leases",
    transitionEmail: "update the email",
    scheduleRetry: "schedule the email's retry",
    recordOutcomes: "record the outcomes",
    recordOutcomesAndClaim: "record the outcomes and claim due emails",
    markEmailReputation: "mark the email",
    domainReputation: "count the domain's reputation",
    listEmailEvents: "read the email's events",
    purgeOrphanContent: "delete content slices without an email",
  };

  async insertEmails(
    emails: EmailRecord[],
    completion?: IdempotencyCompletion,
    domainEvents?: readonly DomainEvent[],
  ): Promise<void> {
    const events = emails.map((e) => eventRow(e.id, 1, firstEvent(e)));
    const sliced: string[] = [];
    try {
      const rows = [];
      for (const email of emails) {
        const split = splitContent(email.content);
        if (split === undefined) {
          rows.push(toRow(email, JSON.stringify(email.content), null));
          continue;
        }
        sliced.push(email.id);
        const at = checkedEpochMs(email.createdAt, "createdAt");
        rows.push(toRow(email, split.skeleton, await writeSlices(this.db, this.engine, email.id, split.pieces, at)));
      }
      await this.#insertRows(rows, events, completion, domainEvents);
    } catch (error) {
      // Best effort: slices left behind (the database went away too) are the purge's (purgeOrphanContent).
      if (sliced.length > 0) await deleteOrphanSlices(this.db, Number.MAX_SAFE_INTEGER, sliced).catch(() => 0);
      throw error;
    }
  }

  /**
   * The accepting transaction: rows, first events and the idempotency completion, committed
   * durably: on disk before this resolves, the wait for the disk off the event loop where the
   * engine allows it (relaxed-durability.ts, withSyncedCommit).
   */
  async #insertRows(
    rows: Insertable<EmailsTable>[],
    events: Insertable<EmailEventsTable>[],
    completion?: IdempotencyCompletion,
    domainEvents?: readonly DomainEvent[],
  ): Promise<void> {
    await withSyncedCommit(this.db, this.engine, (held) =>
      inTransaction(held, this.engine, async (trx) => {
        for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
          const chunk = { rows: rows.slice(i, i + INSERT_CHUNK), events: events.slice(i, i + INSERT_CHUNK) };
          await insertRows(trx as unknown as AnyKysely, this.engine, "flagpost_emails", chunk.rows);
          await insertRows(trx as unknown as AnyKysely, this.engine, "flagpost_email_events", chunk.events);
        }
        if (completion) await completeClaim(trx, this.engine, completion);
        await recordDomainEvents(trx, this.engine, domainEvents);
      }),
    );
  }

  async getEmail(id: string): Promise<EmailRecord | undefined> {
    const row = await this.db.selectFrom("flagpost_emails").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toRecord(this.db, row);
  }

  async listEmails(page: PageRequest): Promise<EmailListEntry[]> {
    const base = this.db.selectFrom("flagpost_emails").select([...LIST_COLUMNS]);
    const { query, reversed } = pageQuery(base, "id", page);
    const rows = (await query.execute()) as Parameters<typeof toListEntry>[0][];
    // Rows stored before the summary column: their headline comes from the content.
    const older = rows.filter((row) => row.summary === null).map((row) => row.id);
    const contents = new Map<string, string>();
    if (older.length > 0) {
      const full = await this.db
        .selectFrom("flagpost_emails")
        .select(["id", "content"])
        .where("id", "in", older)
        .execute();
      for (const row of full) contents.set(row.id, row.content);
    }
    const entries = rows.map((row) => toListEntry(row, contents.get(row.id)));
    return reversed ? entries.reverse() : entries;
  }

  async rescheduleEmail(id: string, change: EmailReschedule): Promise<EmailRecord | undefined> {
    return inTransaction(this.db, this.engine, (trx) =>
      updateAndAppend(trx, this.engine, id, rescheduleUpdate(trx, id, change), change.event, change.events),
    );
  }

  async findEmailByProviderMessageId(providerMessageId: string): Promise<EmailRecord | undefined> {
    const row = await this.db
      .selectFrom("flagpost_emails")
      .selectAll()
      .where("provider_message_id", "=", providerMessageId)
      .orderBy("id")
      .limit(1)
      .executeTakeFirst();
    return row && toRecord(this.db, row);
  }

  async claimDueEmails(
    now: number,
    limit: number,
    leaseMs: number,
    owner: string,
    options: ClaimEmailOptions = {},
  ): Promise<ClaimedEmail[]> {
    return claimEmails(this.db, this.engine, { now, limit, leaseMs, owner, ...options }, false);
  }

  async purgeOrphanContent(now: number): Promise<number> {
    return deleteOrphanSlices(this.db, checkedEpochMs(now, "now") - ORPHAN_SLICE_AGE_MS);
  }

  async renewEmailLeases(ids: readonly string[], owner: string, leaseUntil: number): Promise<string[]> {
    const until = checkedEpochMs(leaseUntil, "leaseUntil");
    return renewLeases(this.db, this.engine, "flagpost_emails", [...new Set(ids)], owner, until);
  }

  async outboxDepth(now: number): Promise<OutboxDepth> {
    return outboxDepthOf(this.db, checkedEpochMs(now, "now"));
  }

  async listEmailLeaseOwners(now: number): Promise<string[]> {
    const at = checkedEpochMs(now, "now");
    return listLeaseOwners(this.db, OUTBOX, at);
  }

  async releaseEmailLeases(owners: readonly string[]): Promise<number> {
    return releaseLeases(this.db, OUTBOX, owners);
  }

  async transitionEmail(id: string, transition: EmailTransition): Promise<EmailRecord | undefined> {
    if (transition.from.length === 0) return undefined;
    return inTransaction(this.db, this.engine, (trx) =>
      updateAndAppend(trx, this.engine, id, transitionUpdate(trx, id, transition), transition.event, transition.events),
    );
  }

  async scheduleRetry(id: string, retry: EmailRetry): Promise<EmailRecord | undefined> {
    return inTransaction(this.db, this.engine, (trx) =>
      updateAndAppend(trx, this.engine, id, retryUpdate(trx, id, retry), retry.event, retry.events),
    );
  }

  async recordOutcomes(outcomes: readonly EmailOutcomeWrite[]): Promise<boolean[]> {
    if (outcomes.length === 0) return [];
    return this.#relaxed((trx) => recordOutcomesIn(trx, this.engine, outcomes));
  }

  async recordOutcomesAndClaim(
    outcomes: readonly EmailOutcomeWrite[],
    claim: EmailClaimRequest,
  ): Promise<RecordedOutcomesAndClaim> {
    return this.#relaxed(async (trx) => {
      const applied = outcomes.length === 0 ? [] : await recordOutcomesIn(trx, this.engine, outcomes);
      return { applied, claimed: await claimEmails(trx, this.engine, claim, true) };
    });
  }

  /**
   * A transaction of a worker's outcomes and claims: one lost in a crash means a resend with the
   * same Message-ID or a claim made again, so its commit does not wait for the disk.
   */
  #relaxed<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    return withRelaxedCommit(this.db, this.engine, (held) =>
      inTransaction(held, this.engine, async (trx) => {
        await relaxTransaction(trx, this.engine);
        return work(trx);
      }),
    );
  }

  async markEmailReputation(id: string, mark: ReputationMark): Promise<void> {
    await markReputation(this.db, id, mark);
  }

  async domainReputation(domain: string, window: number): Promise<DomainReputationCounts> {
    return countReputation(this.db, domain, window);
  }

  async listEmailEvents(id: string): Promise<EmailEvent[]> {
    const rows = await this.db
      .selectFrom("flagpost_email_events")
      .selectAll()
      .where("email_id", "=", id)
      .orderBy("seq")
      .execute();
    return rows.map(toEvent);
  }
}
