import { sendingDomainOf } from "../domains/reputation-window.js";
import { checkedEpochMs } from "../time.js";
import { headlineOf } from "../ports/storage/email-headline.js";
import type {
  ClaimedEmail,
  DomainEvent,
  EmailClaimRequest,
  EmailEvent,
  EmailOutcomeWrite,
  EmailRecord,
  EmailRepository,
  EmailRetry,
  EmailTransition,
  EpochMs,
  NewEmailEvent,
  OutboxDepth,
  ReputationMark,
} from "../ports/storage/index.js";
import { MemoryLeases, unlease } from "./memory-leases.js";
import type { MemoryIdempotency } from "./memory-idempotency.js";
import { copy, MemoryTable, pageOf } from "./memory-table.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";

/** Whether nobody holds the email at `at` (no lease, or one ended by then). */
const unleasedAt = (r: EmailRecord, at: EpochMs) => r.leaseUntil === undefined || r.leaseUntil <= at;
const newestSentFirst = (a: EmailRecord, b: EmailRecord) =>
  a.sentAt! !== b.sentAt! ? (a.sentAt! < b.sentAt! ? 1 : -1) : a.id < b.id ? 1 : -1;

/** The stored size of each email's content (its JSON's length, as the SQL adapters measure it), computed once. */
const contentSizes = new WeakMap<object, number>();

/** A claimed email as the port hands it out: without its content when that is larger than `max`. */
function claimedCopy(record: EmailRecord, max: number | undefined): ClaimedEmail {
  if (max === undefined) return copy(record);
  let size = contentSizes.get(record.content);
  if (size === undefined) contentSizes.set(record.content, (size = JSON.stringify(record.content).length));
  if (size <= max) return copy(record);
  return { ...copy({ ...record, content: headlineOf(record).content }), omittedContentBytes: size };
}

/** The outbox in memory, and every stored email with its events (read only) for the activity counts. */
export type MemoryEmails = EmailRepository & {
  scan(): Iterable<Readonly<{ record: EmailRecord; events: EmailEvent[] }>>;
};

/**
 * The outbox in memory. Each method runs to completion without awaiting, so claims and
 * transitions are atomic within this process; nothing is shared with other processes and
 * nothing survives a restart (an accepted email is lost with the process: use SQLite or a server
 * database for mail you cannot lose). `paused`: whether mail from a sending domain waits (paused
 * by the reputation guard).
 */
export function memoryEmails(
  idempotency: MemoryIdempotency,
  webhooks: MemoryWebhookState,
  paused: (domain: string | undefined) => boolean,
): MemoryEmails {
  const records = new MemoryTable<EmailRecord>((r) => r.id);
  /** Each email's events, in seq order. */
  const history = new Map<string, EmailEvent[]>();
  const leases = new MemoryLeases(records, (r) => r.status === "queued");
  /** A complaint replaces a bounce mark, never the other way round. */
  const marks = new Map<string, ReputationMark>();

  /**
   * When the email exists and `applies` to it: `change`s it, drops its lease, appends the event
   * (its type the email's `lastEvent` unless `keepLastEvent`) and stores the domain events.
   */
  function update(
    id: string,
    applies: (r: EmailRecord) => boolean,
    change: (r: EmailRecord) => void,
    {
      event,
      events,
      keepLastEvent,
    }: { event: NewEmailEvent; events?: readonly DomainEvent[]; keepLastEvent?: boolean },
  ): EmailRecord | undefined {
    const record = records.get(id);
    if (!record || !applies(record)) return undefined;
    change(record);
    unlease(record);
    if (!keepLastEvent) record.lastEvent = event.type;
    const list = history.get(id)!;
    list.push(copy({ emailId: id, seq: list.length + 1, ...event }));
    webhooks.recordDomainEvents(events);
    return copy(record);
  }

  const repository: MemoryEmails = {
    async markEmailReputation(id, mark) {
      if (records.has(id) && marks.get(id) !== "complaint") marks.set(id, mark);
    },
    /** The last `window` emails sent from `domain` (newest sentAt, then id, first) and their marks. */
    async domainReputation(domain, window) {
      const sent = [...records.where((r) => r.sentAt !== undefined && sendingDomainOf(r.content) === domain)]
        .sort(newestSentFirst)
        .slice(0, window);
      const marked = (mark: ReputationMark) => sent.filter((r) => marks.get(r.id) === mark).length;
      return { sends: sent.length, bounces: marked("bounce"), complaints: marked("complaint") };
    },
    async insertEmails(emails, completion, events) {
      records.insert(emails, (id) => `An email with id "${id}" already exists`);
      for (const { id, scheduledAt, createdAt } of emails)
        history.set(id, [
          { emailId: id, seq: 1, type: scheduledAt === undefined ? "queued" : "scheduled", at: createdAt },
        ]);
      if (completion) idempotency.completeNow(completion);
      webhooks.recordDomainEvents(events);
    },
    getEmail: async (id) => records.read(id),
    listEmails: async (page) => pageOf([...records.values()].map(headlineOf), (e) => e.id, page),
    rescheduleEmail: async (id, change) =>
      update(
        id,
        (r) => r.status === "queued" && r.scheduledAt !== undefined && unleasedAt(r, change.unleasedAt),
        (r) => Object.assign(r, { scheduledAt: change.scheduledAt, nextAttemptAt: change.scheduledAt }),
        change,
      ),
    findEmailByProviderMessageId: async (providerMessageId) =>
      records.readWhere((r) => r.providerMessageId === providerMessageId),
    claimDueEmails: async (now, limit, leaseMs, owner, options = {}) =>
      claim({ now, limit, leaseMs, owner, ...options }),
    renewEmailLeases: async (ids, owner, leaseUntil) => leases.renew(ids, owner, leaseUntil),
    async outboxDepth(now) {
      const depth: OutboxDepth = { due: 0, scheduled: 0, held: 0 };
      for (const { content, nextAttemptAt } of records.where((r) => r.status === "queued")) {
        if (paused(sendingDomainOf(content))) depth.held += 1;
        else if (nextAttemptAt > now) depth.scheduled += 1;
        else {
          depth.due += 1;
          if (depth.oldestDueAt === undefined || nextAttemptAt < depth.oldestDueAt) depth.oldestDueAt = nextAttemptAt;
        }
      }
      return depth;
    },
    listEmailLeaseOwners: async (now) => leases.owners(now),
    releaseEmailLeases: async (owners) => leases.release(owners),
    transitionEmail: async (id, change) => transition(id, change),
    scheduleRetry: async (id, change) => retry(id, change),
    recordOutcomes: async (outcomes) => record(outcomes),
    async recordOutcomesAndClaim(outcomes, request) {
      // All or nothing, as one write: a claim that cannot be made is refused before any outcome applies.
      checkedEpochMs(request.now, "now");
      return { applied: record(outcomes), claimed: claim(request) };
    },
    listEmailEvents: async (id) => copy(history.get(id) ?? []),
    *scan() {
      for (const record of records.values()) yield { record, events: history.get(record.id)! };
    },
  };

  function claim({ now, limit, leaseMs, owner, maxContentBytes }: EmailClaimRequest): ClaimedEmail[] {
    const claimable = (r: EmailRecord) => !paused(sendingDomainOf(r.content));
    return leases.claim(now, limit, leaseMs, owner, claimable).map((r) => claimedCopy(r, maxContentBytes));
  }

  function transition(id: string, t: EmailTransition): EmailRecord | undefined {
    return update(
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

  function retry(id: string, change: EmailRetry): EmailRecord | undefined {
    return update(
      id,
      (r) => r.status === "queued" && r.leaseOwner === change.leaseOwner,
      (r) => Object.assign(r, { nextAttemptAt: change.nextAttemptAt, lastError: change.lastError }),
      change,
    );
  }

  /** The outcomes, with no await between them: they apply together, as one write would. */
  function record(outcomes: readonly EmailOutcomeWrite[]): boolean[] {
    return outcomes.map(
      (o) => ("transition" in o ? transition(o.id, o.transition) : retry(o.id, o.retry)) !== undefined,
    );
  }

  return repository;
}
