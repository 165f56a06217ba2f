import type { Clock } from "../ports/clock.js";
import { FlagpostError } from "../errors.js";
import { GroupCommit } from "../jobs/group-commit.js";
import type { JobQueue } from "../jobs/job-queue.js";
import { LeaseWorker } from "../jobs/lease-worker.js";
import { checkRetryPolicy, DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay } from "../jobs/retry-policy.js";
import type { Logger } from "../ports/logger.js";
import { ByteBudget } from "../jobs/byte-budget.js";
import type { ClaimedEmail, EmailOutcomeWrite, EmailRecord, Storage } from "../ports/storage/index.js";
import type { MailTransport } from "../ports/transport.js";
import { isoFromMs } from "../time.js";
import { applyTransition } from "./lifecycle.js";
import { isAddress } from "./addresses.js";
import { type Outcome, outcomeDetail } from "./outcome.js";
import { refusalBounces, suppressRefused } from "./refusals.js";
import { emailBounce } from "./report-envelope.js";
import { sendAttempt, type SendAttemptDeps } from "./send-attempt.js";
import { SuppressionLookups } from "./suppression-lookups.js";
import { emailDomainEvent, transitionDomainEvents } from "./webhook-events.js";
import type { SuppressionPolicy } from "./suppression-policy.js";
import type { VerpTags } from "./verp-tag.js";
import {
  DEFAULT_LARGE_EMAIL_BYTES,
  DEFAULT_LEASE_MS,
  DEFAULT_SENDING_BYTES,
  type OutboxWorkerOptions,
} from "./outbox-options.js";

/** Most outcomes stored by one write. */
const MAX_OUTCOMES_PER_WRITE = 200;
/** While sends are still finishing, how long an outcome may wait for others to share its write. */
const OUTCOME_WRITE_DELAY_MS = 20;

/**
 * Hands queued emails to the transport: a {@link LeaseWorker} over the outbox (so several
 * workers, in one process or many, never send the same email at once) whose job is one send
 * attempt, and whose result is recorded as a status change or a scheduled retry. Runs on its own
 * after `start()`; `runOnce()` does one round for tests and scripts.
 *
 * Outcomes are stored together (group commit, see src/jobs/group-commit.ts): while sends are
 * still finishing, an outcome waits up to 20 ms (or until 2 × `concurrency` wait) for others to
 * share its write; when none is sending, or the worker stops, it is written at once. Nothing
 * changes for a crash: until its write commits, an email stays queued and leased, and is sent
 * again with the same Message-ID once the lease ends (at least once).
 */
export class OutboxWorker {
  readonly autoStart: boolean;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #retry: RetryPolicy;
  readonly #policy: SuppressionPolicy;
  readonly #sending: SendAttemptDeps;
  readonly #worker: LeaseWorker<ClaimedEmail, Outcome>;
  readonly #outcomes: GroupCommit<EmailOutcomeWrite, boolean>;

  constructor(
    deps: {
      storage: Storage;
      transport: MailTransport;
      clock: Clock;
      logger: Logger;
      verpTags: VerpTags;
      policy: SuppressionPolicy;
      /** Signing keys and return paths of verified sending domains (docs/domains.md). */
      signers?: SendAttemptDeps["signers"];
    },
    options: OutboxWorkerOptions = {},
  ) {
    this.#clock = deps.clock;
    this.#policy = deps.policy;
    this.#logger = deps.logger;
    const sendTimeoutMs = options.sendTimeoutMs ?? 60 * 1000;
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.autoStart = options.autoStart ?? true;
    if (!(sendTimeoutMs > 0)) throw new FlagpostError("validation_error", "sendTimeoutMs must be above 0");
    checkRetryPolicy(this.#retry);
    const bounceDomain = options.bounceDomain?.trim().toLowerCase();
    if (bounceDomain !== undefined && !isAddress(`bounces@${bounceDomain}`))
      throw new FlagpostError(
        "validation_error",
        `bounceDomain must be a domain name such as "bounces.example.com", not ${JSON.stringify(options.bounceDomain)}`,
      );
    const largeEmailBytes = options.largeEmailBytes ?? DEFAULT_LARGE_EMAIL_BYTES;
    if (!(largeEmailBytes >= 0)) throw new FlagpostError("validation_error", "largeEmailBytes must be 0 or more");
    this.#sending = {
      storage: deps.storage,
      suppressions: new SuppressionLookups(deps.storage),
      transport: deps.transport,
      budget: new ByteBudget(options.sendingBytes ?? DEFAULT_SENDING_BYTES, "sendingBytes"),
      sendTimeoutMs,
      maxAttempts: this.#retry.maxAttempts,
      verpTags: deps.verpTags,
      ...(bounceDomain === undefined ? {} : { bounceDomain }),
      ...(deps.signers === undefined ? {} : { signers: deps.signers }),
    };
    const emails = deps.storage.emails;
    const queue: JobQueue<ClaimedEmail> = {
      claim: (now, limit, leaseMs, owner) =>
        emails.claimDueEmails(now, limit, leaseMs, owner, { maxContentBytes: largeEmailBytes }),
      renew: (ids, owner, until) => emails.renewEmailLeases(ids, owner, until),
      owners: (now) => emails.listEmailLeaseOwners(now),
      release: (owners) => emails.releaseEmailLeases(owners),
    };
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const concurrency = options.concurrency ?? 10;
    this.#worker = new LeaseWorker(
      queue,
      {
        perform: (email) => sendAttempt(this.#sending, email),
        record: (email, outcome) => this.#record(email, outcome),
        claimAlongSoon: (urgent) => {
          if (this.#outcomes.waiting === 0) return false;
          if (urgent) this.#outcomes.flush();
          return true;
        },
      },
      deps.clock,
      deps.logger,
      {
        name: "email outbox",
        concurrency,
        leaseMs,
        // A send starts only while half a lease is left: renewals are working (or the send could
        // not outlive the lease anyway).
        startMarginMs: Math.min(sendTimeoutMs, leaseMs / 2),
        ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      },
    );
    this.#outcomes = new GroupCommit((writes) => this.#writeOutcomes(writes, largeEmailBytes), {
      maxBatch: MAX_OUTCOMES_PER_WRITE,
      maxDelayMs: OUTCOME_WRITE_DELAY_MS,
      writeNow: (waiting) => !this.#worker.running || this.#worker.performing === 0 || waiting >= 2 * concurrency,
    });
  }

  /** This worker's name in leases: host, process and a random part. */
  get owner(): string {
    return this.#worker.owner;
  }

  get running(): boolean {
    return this.#worker.running;
  }

  /** Emails this worker is sending or has sent and not yet recorded. */
  get inFlight(): number {
    return this.#worker.inFlight;
  }

  get retryPolicy(): Readonly<RetryPolicy> {
    return this.#retry;
  }

  /** Starts claiming and sending in the background. Does nothing when already running. */
  start(): void {
    this.#worker.start();
  }

  /** Stops claiming, sends the emails it already claimed, then waits until every outcome is stored. */
  async stop(): Promise<void> {
    const stopped = this.#worker.stop();
    this.#outcomes.flush();
    await stopped;
  }

  /** Looks for due emails now instead of at the next poll (send() calls it). */
  wake(): void {
    this.#worker.wake();
  }

  /** One round: claims the due emails there is room for, sends them and records the outcomes. Resolves with how many were claimed. */
  runOnce(): Promise<number> {
    return this.#worker.runOnce();
  }

  /** One group of outcomes, with the next claim in the same commit when the worker wants one. */
  #writeOutcomes(writes: EmailOutcomeWrite[], maxContentBytes: number): Promise<boolean[]> {
    const emails = this.#sending.storage.emails;
    return this.#worker.claimAlong(writes.length, async (claim) => {
      if (claim === undefined) return { result: await emails.recordOutcomes(writes), claimed: [] };
      const { applied, claimed } = await emails.recordOutcomesAndClaim(writes, { ...claim, maxContentBytes });
      return { result: applied, claimed };
    });
  }

  async #record(email: EmailRecord, outcome: Outcome): Promise<void> {
    const at = this.#clock.now();
    const { maxAttempts } = this.#retry;
    if (outcome.kind === "retry" && email.attempts < maxAttempts) {
      const nextAttemptAt = this.#clock.now() + retryDelay(this.#retry, email.attempts);
      const stored = await this.#outcomes.add({
        id: email.id,
        retry: {
          leaseOwner: this.owner,
          nextAttemptAt,
          lastError: outcome.error,
          event: {
            type: "delivery_delayed",
            at,
            detail: { ...outcomeDetail(outcome), attempt: email.attempts, next_attempt_at: isoFromMs(nextAttemptAt) },
          },
          events: [emailDomainEvent("email.delivery_delayed", email, at)],
        },
      });
      if (!stored) this.#lostLease(email, "delivery_delayed");
      else
        this.#logger.warn("email delayed; will retry", {
          id: email.id,
          attempt: email.attempts,
          next_attempt_at: isoFromMs(nextAttemptAt),
          error: outcome.error,
        });
      return;
    }
    const to = outcome.kind === "retry" || outcome.kind === "suppressed" ? "failed" : outcome.kind;
    const refused = refusalBounces(outcome.rejected);
    const bounce = to === "bounced" ? emailBounce(refused) : undefined;
    const detail =
      outcome.kind === "retry"
        ? { ...outcomeDetail(outcome), attempts: email.attempts, reason: "retry budget spent" }
        : bounce
          ? { ...outcomeDetail(outcome), bounce }
          : outcomeDetail(outcome);
    const failureReason = to === "failed" ? failureReasonOf(outcome, email.attempts > maxAttempts) : undefined;
    const change = applyTransition(email, to, at);
    if (!change.ok) {
      this.#lostLease(email, to);
      return;
    }
    const stored = await this.#outcomes.add({
      id: email.id,
      transition: {
        from: [email.status],
        leaseOwner: this.owner,
        to,
        ...(change.sentAt === undefined ? {} : { sentAt: change.sentAt }),
        ...(change.deliveredAt === undefined ? {} : { deliveredAt: change.deliveredAt }),
        ...("providerMessageId" in outcome && outcome.providerMessageId !== undefined
          ? { providerMessageId: outcome.providerMessageId }
          : {}),
        ...(failureReason === undefined ? {} : { failureReason }),
        event: { type: outcome.kind === "suppressed" ? "suppressed" : to, at, detail },
        events:
          outcome.kind === "suppressed"
            ? [
                emailDomainEvent("email.suppressed", email, at, {
                  suppressed: { type: "OnSuppressionList", message: outcome.error },
                }),
              ]
            : transitionDomainEvents(email, to, at, "error" in outcome ? outcome.error : undefined, bounce),
      },
    });
    if (!stored) this.#lostLease(email, to);
    else if (to === "failed" || to === "bounced")
      this.#logger.warn(`email ${to}`, {
        id: email.id,
        attempts: email.attempts,
        error: "error" in outcome ? outcome.error : undefined,
      });
    // Refusals at RCPT suppress by the same rule as reports. After the outcome's write: a crash in
    // between loses the suppression, never the outcome; the next refusal adds it.
    if (stored) await suppressRefused(this.#policy, this.#logger, email.id, refused);
  }

  #lostLease(email: EmailRecord, outcome: string): void {
    this.#logger.warn(
      "email outbox: outcome not recorded; the email changed meanwhile (a report arrived or the lease ended)",
      { id: email.id, outcome },
    );
  }
}

/** Why a failed email failed, in a word: `suppressed`, `retry_budget_spent` (transient failures, or attempts that died), else `permanent_error`. */
function failureReasonOf(outcome: Outcome, budgetSpent: boolean): string {
  if (outcome.kind === "suppressed") return "suppressed";
  if (outcome.kind === "retry" || budgetSpent) return "retry_budget_spent";
  return "permanent_error";
}
