import { FlagpostError } from "../errors.js";
import type {
  ClaimEmailOptions,
  ClaimedEmail,
  EmailClaimRequest,
  RecordedOutcomesAndClaim,
  DomainReputationCounts,
  ReputationMark,
  DomainEvent,
  EmailEvent,
  EmailListEntry,
  EmailReschedule,
  PageRequest,
  EmailOutcomeWrite,
  EmailRecord,
  OutboxDepth,
  EmailRepository,
  EmailRetry,
  EmailTransition,
  IdempotencyCompletion,
  NewEmailEvent,
} from "../ports/storage/index.js";
import type { MemoryIdempotencyRepository } from "./memory-idempotency.js";
import { headlineOf } from "../ports/storage/email-headline.js";
import { claimedCopy } from "./memory-email-claims.js";
import { sendingDomainOf } from "../domains/reputation-window.js";
import { MemoryLeases, unlease } from "./memory-leases.js";
import { ReputationMarks } from "./memory-reputation.js";
import { copy, MemoryTable, pageOf } from "./memory-table.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";

/** Whether nobody holds the email at `at` (no lease, or one ended by then). */
const unleasedAt = (r: EmailRecord, at: string) => r.leaseUntil === undefined || r.leaseUntil <= at;

/**
 * The outbox in memory. Each method runs to completion without awaiting, so claims and
 * transitions are atomic within this process; nothing is shared with other processes and
 * nothing survives a restart (an accepted email is lost with the process: use SQLite or a server
 * database for mail you cannot lose).
 */
export class MemoryEmailRepository implements EmailRepository {
  readonly #records = new MemoryTable<EmailRecord>((r) => r.id);
  /** Each email's events, in seq order. */
  readonly #events = new Map<string, EmailEvent[]>();
  readonly #leases = new MemoryLeases(this.#records, (r) => r.status === "queued");
  readonly #marks = new ReputationMarks();

  /** `paused`: whether mail from a sending domain waits (paused by the reputation guard). */
  constructor(
    readonly idempotency: MemoryIdempotencyRepository,
    readonly webhooks: MemoryWebhookState,
    readonly paused: (domain: string | undefined) => boolean = () => false,
  ) {}

  async markEmailReputation(id: string, mark: ReputationMark): Promise<void> {
    if (this.#records.has(id)) this.#marks.mark(id, mark);
  }

  async domainReputation(domain: string, window: number): Promise<DomainReputationCounts> {
    return this.#marks.count(this.#records.values(), domain, window);
  }

  async insertEmails(
    emails: EmailRecord[],
    completion?: IdempotencyCompletion,
    events?: readonly DomainEvent[],
  ): Promise<void> {
    this.#records.insert(emails, (id) => `An email with id "${id}" already exists`);
    for (const { id, scheduledAt, createdAt } of emails)
      this.#events.set(id, [
        { emailId: id, seq: 1, type: scheduledAt === undefined ? "queued" : "scheduled", at: createdAt },
      ]);
    if (completion) this.idempotency.completeNow(completion);
    this.webhooks.recordDomainEvents(events);
  }

  async getEmail(id: string): Promise<EmailRecord | undefined> {
    return this.#records.read(id);
  }

  async listEmails(page: PageRequest): Promise<EmailListEntry[]> {
    return pageOf([...this.#records.values()].map(headlineOf), (e) => e.id, page);
  }

  async rescheduleEmail(id: string, change: EmailReschedule): Promise<EmailRecord | undefined> {
    return this.#update(
      id,
      (r) => r.status === "queued" && r.scheduledAt !== undefined && unleasedAt(r, change.unleasedAt),
      (r) => Object.assign(r, { scheduledAt: change.scheduledAt, nextAttemptAt: change.scheduledAt }),
      change,
    );
  }

  async findEmailByProviderMessageId(providerMessageId: string): Promise<EmailRecord | undefined> {
    const found = this.#records.find((r) => r.providerMessageId === providerMessageId);
    return found && copy(found);
  }

  async claimDueEmails(
    now: string,
    limit: number,
    leaseMs: number,
    owner: string,
    options: ClaimEmailOptions = {},
  ): Promise<ClaimedEmail[]> {
    return this.#claim({ now, limit, leaseMs, owner, ...options });
  }

  #claim({ now, limit, leaseMs, owner, maxContentBytes }: EmailClaimRequest): ClaimedEmail[] {
    const claimable = (r: EmailRecord) => !this.paused(sendingDomainOf(r.content));
    return this.#leases.claim(now, limit, leaseMs, owner, claimable).map((r) => claimedCopy(r, maxContentBytes));
  }

  async renewEmailLeases(ids: readonly string[], owner: string, leaseUntil: string): Promise<string[]> {
    return this.#leases.renew(ids, owner, leaseUntil);
  }

  async outboxDepth(now: string): Promise<OutboxDepth> {
    const depth: OutboxDepth = { due: 0, scheduled: 0, held: 0 };
    for (const { content, nextAttemptAt } of this.#records.where((r) => r.status === "queued")) {
      if (this.paused(sendingDomainOf(content))) depth.held += 1;
      else if (nextAttemptAt > now) depth.scheduled += 1;
      else {
        depth.due += 1;
        if (depth.oldestDueAt === undefined || nextAttemptAt < depth.oldestDueAt) depth.oldestDueAt = nextAttemptAt;
      }
    }
    return depth;
  }

  async listEmailLeaseOwners(now: string): Promise<string[]> {
    return this.#leases.owners(now);
  }

  async releaseEmailLeases(owners: readonly string[]): Promise<number> {
    return this.#leases.release(owners);
  }

  async transitionEmail(id: string, transition: EmailTransition): Promise<EmailRecord | undefined> {
    return this.#transition(id, transition);
  }

  async scheduleRetry(id: string, retry: EmailRetry): Promise<EmailRecord | undefined> {
    return this.#retry(id, retry);
  }

  #transition(id: string, t: EmailTransition): EmailRecord | undefined {
    return this.#update(
      id,
      (r) =>
        t.from.includes(r.status) &&
        (t.leaseOwner === undefined || r.leaseOwner === t.leaseOwner) &&
        (t.unleasedAt === undefined || unleasedAt(r, t.unleasedAt)),
      (r) => {
        r.status = t.to;
        if (t.sentAt !== undefined) r.sentAt ??= t.sentAt;
        if (t.deliveredAt !== undefined) r.deliveredAt ??= t.deliveredAt;
        if (t.failureReason !== undefined) r.failureReason = t.failureReason;
        if (t.providerMessageId !== undefined) r.providerMessageId = t.providerMessageId;
      },
      t,
    );
  }

  #retry(id: string, retry: EmailRetry): EmailRecord | undefined {
    return this.#update(
      id,
      (r) => r.status === "queued" && r.leaseOwner === retry.leaseOwner,
      (r) => Object.assign(r, { nextAttemptAt: retry.nextAttemptAt, lastError: retry.lastError }),
      retry,
    );
  }

  /**
   * When the email exists and `applies` to it: `change`s it, drops its lease, appends the event
   * (its type the email's `lastEvent` unless `keepLastEvent`) and stores the domain events.
   */
  #update(
    id: string,
    applies: (r: EmailRecord) => boolean,
    change: (r: EmailRecord) => void,
    {
      event,
      events,
      keepLastEvent,
    }: { event: NewEmailEvent; events?: readonly DomainEvent[]; keepLastEvent?: boolean },
  ): EmailRecord | undefined {
    const record = this.#records.get(id);
    if (!record || !applies(record)) return undefined;
    change(record);
    unlease(record);
    if (!keepLastEvent) record.lastEvent = event.type;
    const history = this.#events.get(id)!;
    history.push(copy({ emailId: id, seq: history.length + 1, ...event }));
    this.webhooks.recordDomainEvents(events);
    return copy(record);
  }

  async recordOutcomes(outcomes: readonly EmailOutcomeWrite[]): Promise<boolean[]> {
    return this.#record(outcomes);
  }

  async recordOutcomesAndClaim(
    outcomes: readonly EmailOutcomeWrite[],
    claim: EmailClaimRequest,
  ): Promise<RecordedOutcomesAndClaim> {
    // All or nothing, as one write: a claim that cannot be made is refused before any outcome applies.
    if (!Number.isFinite(Date.parse(claim.now)))
      throw new FlagpostError("validation_error", `"now" must be an ISO-8601 time, got ${JSON.stringify(claim.now)}`);
    return { applied: this.#record(outcomes), claimed: this.#claim(claim) };
  }

  /** The outcomes, with no await between them: they apply together, as one write would. */
  #record(outcomes: readonly EmailOutcomeWrite[]): boolean[] {
    return outcomes.map(
      (o) => ("transition" in o ? this.#transition(o.id, o.transition) : this.#retry(o.id, o.retry)) !== undefined,
    );
  }

  async listEmailEvents(id: string): Promise<EmailEvent[]> {
    return copy(this.#events.get(id) ?? []);
  }

  /** Every stored email with its events, in no particular order: for the activity counts (read only). */
  *scan(): Iterable<Readonly<{ record: EmailRecord; events: EmailEvent[] }>> {
    for (const record of this.#records.values()) yield { record, events: this.#events.get(record.id)! };
  }
}
