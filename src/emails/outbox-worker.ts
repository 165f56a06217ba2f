import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.js";
import { errorFields, type Logger } from "../logger.js";
import type { EmailOutcomeWrite, EmailRecord, Storage } from "../storage/index.js";
import type { MailTransport, TransportResult } from "../transport.js";
import { checkRetryPolicy, DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay } from "./backoff.js";
import { applyTransition } from "./lifecycle.js";
import { envelopeRecipients, toOutgoing } from "./message.js";
import { failureOutcome, type Outcome, successOutcome } from "./outcome.js";

export interface OutboxWorkerOptions {
  /** Sends in flight at once; also the most emails one claim takes. Default 10. */
  concurrency?: number;
  /**
   * How long a claimed email stays with this worker. A worker that crashes holds its emails
   * this long; then others may send them. Must exceed `sendTimeoutMs`. Default 5 min.
   */
  leaseMs?: number;
  /** A send that has not finished after this long counts as a transient failure. Default 60 s. */
  sendTimeoutMs?: number;
  /** How often to look for due emails when nothing wakes the worker. Default 1 s. */
  pollIntervalMs?: number;
  /** Retry budget and backoff. Defaults: 8 attempts, 5 s doubling to at most 30 min, full jitter. */
  retry?: Partial<RetryPolicy>;
  /** Start with `flagpost.ready()`. Default true (when a transport is configured). */
  autoStart?: boolean;
}

interface Settings {
  concurrency: number;
  leaseMs: number;
  sendTimeoutMs: number;
  pollIntervalMs: number;
  retry: RetryPolicy;
}

function settingsFrom(options: OutboxWorkerOptions): Settings {
  const settings: Settings = {
    concurrency: options.concurrency ?? 10,
    leaseMs: options.leaseMs ?? 5 * 60 * 1000,
    sendTimeoutMs: options.sendTimeoutMs ?? 60 * 1000,
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
  };
  if (!Number.isInteger(settings.concurrency) || settings.concurrency < 1) throw new RangeError("concurrency must be an integer of at least 1");
  if (!(settings.sendTimeoutMs > 0)) throw new RangeError("sendTimeoutMs must be above 0");
  if (!(settings.leaseMs > settings.sendTimeoutMs)) throw new RangeError("leaseMs must exceed sendTimeoutMs, or a slow send could lose its lease and be sent twice");
  if (!(settings.pollIntervalMs > 0)) throw new RangeError("pollIntervalMs must be above 0");
  checkRetryPolicy(settings.retry);
  return settings;
}

class SendTimeout extends Error {
  override readonly name = "SendTimeout";
}

/** Most outcomes stored by one write. */
const MAX_OUTCOMES_PER_WRITE = 200;
/** While sends are still finishing, how long an outcome may wait for others to share its write. */
const OUTCOME_WRITE_DELAY_MS = 20;
/**
 * Limits, in multiples of `concurrency`: one claim takes up to CLAIM_SIZE × concurrency emails
 * into the local queue (when less than one concurrency's worth is queued), and the worker holds
 * at most HELD_LIMIT × concurrency (queued, being sent, or waiting for their outcome's write).
 */
const CLAIM_SIZE = 2;
const HELD_LIMIT = 4;

interface PendingOutcome {
  write: EmailOutcomeWrite;
  resolve(applied: boolean): void;
  reject(error: unknown): void;
}

/**
 * Hands queued emails to the transport. Claims due emails with a lease (so several workers, in
 * one process or many, never send the same email at once), sends up to `concurrency` at a time,
 * and records each outcome as a status change or a scheduled retry. Runs on its own after
 * `start()`; `runOnce()` does one round for tests and scripts.
 *
 * Throughput comes from doing storage work in groups, since every write is a commit (an fsync
 * on SQLite, which blocks the event loop): claims take up to 2 × `concurrency` emails at a time
 * into a local queue, so a claim is made about once per 2 × `concurrency` sends; a send gives up
 * its slot as soon as the transport is done; and outcomes are stored together (see #store). At
 * any time this worker holds at most 4 × `concurrency` emails: queued here, being sent, or sent
 * and waiting for their outcome's write.
 */
export class OutboxWorker {
  /** This worker's name in leases: host, process and a random part. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  readonly #storage: Storage;
  readonly #transport: MailTransport;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #settings: Settings;
  readonly autoStart: boolean;

  /** Claimed by this worker, not yet handed to the transport. */
  #queue: EmailRecord[] = [];
  /** Handed to the transport, not finished. */
  #sending = 0;
  /** One per email from the start of its send until its outcome is stored (or failed to be). */
  readonly #inFlight = new Set<Promise<void>>();
  /** Outcomes waiting for the next write. */
  #outcomes: PendingOutcome[] = [];
  #writing = false;
  #writeTimer: NodeJS.Timeout | undefined;
  #running = false;
  /** A claim in progress. */
  #claiming: Promise<void> | undefined;
  /** There may be due emails: set by wake(), the poll timer and a claim that came back full. */
  #due = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #idle: (() => void)[] = [];

  constructor(deps: { storage: Storage; transport: MailTransport; clock: Clock; logger: Logger }, options: OutboxWorkerOptions = {}) {
    this.#storage = deps.storage;
    this.#transport = deps.transport;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#settings = settingsFrom(options);
    this.autoStart = options.autoStart ?? true;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Emails this worker is sending or has sent and not yet recorded. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  get retryPolicy(): Readonly<RetryPolicy> {
    return this.#settings.retry;
  }

  /** Starts claiming and sending in the background. Does nothing when already running. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#pollTimer = setInterval(() => this.wake(), this.#settings.pollIntervalMs);
    this.wake();
  }

  /**
   * Stops claiming, sends the emails it already claimed, then waits until every send has
   * finished and its outcome is stored.
   */
  async stop(): Promise<void> {
    this.#running = false;
    clearInterval(this.#pollTimer);
    this.#pollTimer = undefined;
    await this.#claiming;
    this.#pump();
    this.#flushSoon();
    await this.#drain();
  }

  /** Looks for due emails now instead of at the next poll (send() calls it). */
  wake(): void {
    this.#due = true;
    this.#pump();
  }

  /**
   * One round: claims the due emails there is room for, sends them and records the outcomes.
   * Resolves with how many were claimed, once all of them are recorded.
   */
  async runOnce(): Promise<number> {
    const claimed = await this.#claim(this.#settings.concurrency - this.#inFlight.size - this.#queue.length);
    await Promise.all(claimed.map((email) => this.#track(email)));
    return claimed.length;
  }

  /** Starts queued sends while there are free slots, and claims more when the queue runs low. */
  #pump(): void {
    const { concurrency } = this.#settings;
    while (this.#sending < concurrency && this.#queue.length > 0) void this.#track(this.#queue.shift()!);
    const held = this.#queue.length + this.#inFlight.size;
    if (!this.#running || !this.#due || this.#claiming || this.#queue.length >= concurrency || held >= HELD_LIMIT * concurrency) return;
    const room = Math.min(CLAIM_SIZE * concurrency, HELD_LIMIT * concurrency - held);
    this.#due = false; // a wake() during the claim sets it again
    this.#claiming = this.#claim(room).then(
      (claimed) => {
        if (claimed.length === room) this.#due = true; // maybe more waiting
        this.#queue.push(...claimed);
      },
      (error: unknown) => this.#logger.error("email outbox: claiming due emails failed; trying again", errorFields(error)),
    );
    void this.#claiming.finally(() => {
      this.#claiming = undefined;
      this.#pump();
    });
  }

  async #claim(room: number): Promise<EmailRecord[]> {
    if (room <= 0) return [];
    const now = new Date(this.#clock.now()).toISOString();
    return this.#storage.emails.claimDueEmails(now, room, this.#settings.leaseMs, this.owner);
  }

  #track(email: EmailRecord): Promise<void> {
    const work = this.#process(email).catch((error: unknown) => {
      // The outcome could not be stored: the lease runs out and the email is tried again.
      this.#logger.error("email outbox: recording an outcome failed; the email is retried when its lease ends", { id: email.id, ...errorFields(error) });
    });
    this.#inFlight.add(work);
    void work.finally(() => {
      this.#inFlight.delete(work);
      if (this.#inFlight.size === 0 && this.#queue.length === 0) for (const resolve of this.#idle.splice(0)) resolve();
      this.#pump();
    });
    return work;
  }

  /** Resolves once nothing is queued, being sent or waiting for its outcome's write. */
  async #drain(): Promise<void> {
    while (this.#inFlight.size > 0 || this.#queue.length > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  async #process(email: EmailRecord): Promise<void> {
    const { maxAttempts } = this.#settings.retry;
    if (email.attempts > maxAttempts) {
      // Earlier attempts ended without an outcome (the worker died mid-send each time).
      const error = `gave up after ${maxAttempts} attempts; the last ones ended without an outcome`;
      await this.#record(email, { kind: "failed", error, detail: { error, attempts: email.attempts - 1 } });
      return;
    }
    const leaseLeft = email.leaseUntil === undefined ? Infinity : Date.parse(email.leaseUntil) - this.#clock.now();
    if (leaseLeft <= this.#settings.sendTimeoutMs) {
      // Waited in the queue for so long that a send could outlive the lease, and another worker
      // could send it too. Leave it: it is claimed again once the lease ends.
      this.#logger.warn("email outbox: a claimed email waited too long to be sent; it is sent when its lease ends", { id: email.id });
      return;
    }
    const message = toOutgoing(email);
    let outcome: Outcome;
    this.#sending += 1;
    try {
      outcome = successOutcome(await this.#sendWithTimeout(message));
    } catch (error) {
      outcome = failureOutcome(error, envelopeRecipients(message));
    } finally {
      this.#sending -= 1;
    }
    this.#pump(); // the slot is free: the next queued email goes out while this outcome is stored
    await this.#record(email, outcome);
  }

  async #sendWithTimeout(message: ReturnType<typeof toOutgoing>): Promise<TransportResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SendTimeout(`the transport did not finish within ${this.#settings.sendTimeoutMs} ms`)), this.#settings.sendTimeoutMs);
    });
    try {
      return await Promise.race([this.#transport.send(message), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #record(email: EmailRecord, outcome: Outcome): Promise<void> {
    const at = new Date(this.#clock.now()).toISOString();
    const { maxAttempts } = this.#settings.retry;
    if (outcome.kind === "retry" && email.attempts < maxAttempts) {
      const nextAttemptAt = new Date(this.#clock.now() + retryDelay(this.#settings.retry, email.attempts)).toISOString();
      const stored = await this.#store({
        id: email.id,
        retry: {
          leaseOwner: this.owner,
          nextAttemptAt,
          lastError: outcome.error,
          event: { type: "delivery_delayed", at, detail: { ...outcome.detail, attempt: email.attempts, next_attempt_at: nextAttemptAt } },
        },
      });
      if (!stored) this.#lostLease(email, "delivery_delayed");
      else this.#logger.warn("email delayed; will retry", { id: email.id, attempt: email.attempts, next_attempt_at: nextAttemptAt, error: outcome.error });
      return;
    }
    const to = outcome.kind === "retry" ? "failed" : outcome.kind;
    const detail = outcome.kind === "retry" ? { ...outcome.detail, attempts: email.attempts, reason: "retry budget spent" } : outcome.detail;
    const change = applyTransition(email, to, at);
    if (!change.ok) {
      this.#lostLease(email, to);
      return;
    }
    const stored = await this.#store({
      id: email.id,
      transition: {
        from: [email.status],
        leaseOwner: this.owner,
        to,
        ...(change.sentAt === undefined ? {} : { sentAt: change.sentAt }),
        ...(change.deliveredAt === undefined ? {} : { deliveredAt: change.deliveredAt }),
        event: { type: to, at, detail },
      },
    });
    if (!stored) this.#lostLease(email, to);
    else if (to === "failed" || to === "bounced") this.#logger.warn(`email ${to}`, { id: email.id, attempts: email.attempts, error: "error" in outcome ? outcome.error : undefined });
  }

  /**
   * Stores an outcome together with others (group commit): one write — one transaction, one
   * commit — for all the outcomes waiting. While sends are still finishing, an outcome waits up
   * to OUTCOME_WRITE_DELAY_MS (or until 2 × `concurrency` are waiting) for others to join it; when
   * none is, or the worker is stopping, it is written at once. A write never overlaps another.
   * Nothing changes for a crash: until its write commits, an email stays queued and leased, and
   * is sent again with the same Message-ID once the lease ends (at least once).
   */
  #store(write: EmailOutcomeWrite): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#outcomes.push({ write, resolve, reject });
      this.#flushSoon();
    });
  }

  /** Schedules the next write of waiting outcomes, unless one is running or scheduled. */
  #flushSoon(): void {
    if (this.#writing || this.#outcomes.length === 0) return;
    const now = !this.#running || this.#sending === 0 || this.#outcomes.length >= 2 * this.#settings.concurrency;
    if (now) {
      clearTimeout(this.#writeTimer);
      this.#writeTimer = undefined;
      this.#writing = true;
      // One turn of the event loop, so sends finishing in this turn join the write.
      setImmediate(() => void this.#writeOutcomes());
    } else {
      this.#writeTimer ??= setTimeout(() => {
        this.#writeTimer = undefined;
        this.#writing = true;
        void this.#writeOutcomes();
      }, OUTCOME_WRITE_DELAY_MS);
    }
  }

  async #writeOutcomes(): Promise<void> {
    const batch = this.#outcomes.splice(0, MAX_OUTCOMES_PER_WRITE);
    try {
      const applied = await this.#storage.emails.recordOutcomes(batch.map((p) => p.write));
      batch.forEach((p, i) => p.resolve(applied[i] === true));
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
    this.#writing = false;
    this.#flushSoon();
  }

  #lostLease(email: EmailRecord, outcome: string): void {
    this.#logger.warn("email outbox: outcome not recorded; the email changed meanwhile (a report arrived or the lease ended)", { id: email.id, outcome });
  }
}
