import type { Clock } from "../ports/clock.js";
import { FlagpostError } from "../errors.js";
import { uuidv7 } from "../ids.js";
import { parseSchedule } from "../jobs/backoff.js";
import { GroupCommit } from "../jobs/group-commit.js";
import type { JobQueue } from "../jobs/job-queue.js";
import { LeaseWorker } from "../jobs/lease-worker.js";
import { checkRetryPolicy, type RetryPolicy, retryDelay } from "../jobs/retry-policy.js";
import type { Logger } from "../ports/logger.js";
import type { ClaimedDelivery, DeliveryOutcome, EpochMs, Storage } from "../ports/storage/index.js";
import type { SendResult, WebhookSender } from "./sender.js";
import { signedHeaders } from "./signing.js";
import { isoFromMs } from "../time.js";

export interface WebhookWorkerOptions {
  /** Deliveries in flight at once; also the most one claim takes. Default 10. */
  concurrency?: number;
  /**
   * Deliveries of one endpoint this process holds at once (claimed, being sent or recorded).
   * Default 3: an endpoint that never answers ties up at most that many of the `concurrency`
   * slots, and claims pass over its backlog to other endpoints' deliveries.
   */
  perEndpointConcurrency?: number;
  /** How long a claim holds a delivery; renewed while the process lives. Default 30 s. */
  leaseMs?: number;
  /** How often to look for due deliveries stored by other processes. Default 1 s. */
  pollIntervalMs?: number;
  /**
   * Waits before each retry, as `"5s,5m,30m,2h"` or in ms; after the last one the delivery is
   * `failed`. Default `5s,5m,30m,2h,5h,10h,10h` (8 attempts over about 28 h).
   */
  retrySchedule?: string | readonly number[];
  /** Each wait is drawn within ± this fraction of the listed one, so retries spread out. Default 0.1. */
  retryJitter?: number;
  /** An endpoint whose every attempt failed for this long is disabled. Default 5 days. */
  disableAfterMs?: number;
  /** Start with `flagpost.ready()`. Default true. */
  autoStart?: boolean;
}

export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = "5s,5m,30m,2h,5h,10h,10h";
const DEFAULT_PER_ENDPOINT_CONCURRENCY = 3;
const DAY_MS = 86_400_000;
const MAX_OUTCOMES_PER_WRITE = 200;
/** While attempts are still finishing, how long an outcome may wait for others to share its write. */
const OUTCOME_WRITE_DELAY_MS = 20;

/** What perform found: an answer (or its absence) to record, or no request at all. */
type Attempt = { kind: "sent"; sentAt: EpochMs; result: SendResult } | { kind: "skipped"; reason: string };

/** The retry policy of a schedule: one attempt more than there are waits. */
export function webhookRetryPolicy(schedule: string | readonly number[], jitter: number): RetryPolicy {
  const delays = typeof schedule === "string" ? parseSchedule(schedule).delaysMs : [...schedule];
  const policy: RetryPolicy = {
    maxAttempts: delays.length + 1,
    initialDelayMs: 0,
    maxDelayMs: 0,
    schedule: delays,
    scheduleSpread: jitter,
  };
  checkRetryPolicy(policy, "webhooks.retrySchedule");
  return policy;
}

/**
 * Sends stored webhook deliveries: a {@link LeaseWorker} over the deliveries table (claims with a
 * lease, SKIP LOCKED on PostgreSQL/MySQL, so several processes share the work and never send one
 * delivery at once), whose job is one signed POST, and whose result is recorded (the attempt, the
 * delivery's next state, the endpoint's health) through a {@link GroupCommit}. Wakes when this
 * process stores a delivery; deliveries stored elsewhere are found by polling.
 *
 * At least once: until its outcome commits, a delivery stays leased and is sent again (same
 * `webhook-id`) after a crash, by whoever claims it next.
 */
export class WebhookWorker {
  readonly autoStart: boolean;
  readonly #storage: Storage;
  readonly #sender: WebhookSender;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #retry: RetryPolicy;
  readonly #disableAfterMs: number;
  readonly #worker: LeaseWorker<ClaimedDelivery, Attempt>;
  readonly #outcomes: GroupCommit<DeliveryOutcome, boolean>;
  /** Deliveries held per endpoint, for the claim's per-endpoint cap. */
  readonly #busy = new Map<string, number>();
  #unsubscribe: (() => void) | undefined;

  constructor(
    deps: { storage: Storage; sender: WebhookSender; clock: Clock; logger: Logger },
    options: WebhookWorkerOptions = {},
  ) {
    this.#storage = deps.storage;
    this.#sender = deps.sender;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.autoStart = options.autoStart ?? true;
    this.#retry = webhookRetryPolicy(
      options.retrySchedule ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE,
      options.retryJitter ?? 0.1,
    );
    this.#disableAfterMs = options.disableAfterMs ?? 5 * DAY_MS;
    if (!(this.#disableAfterMs > 0))
      throw new FlagpostError("validation_error", "webhooks.disableAfterMs must be above 0");
    const deliveries = deps.storage.webhookDeliveries;
    const perWebhook = options.perEndpointConcurrency ?? DEFAULT_PER_ENDPOINT_CONCURRENCY;
    if (!Number.isInteger(perWebhook) || perWebhook < 1)
      throw new FlagpostError("validation_error", "webhooks.perEndpointConcurrency must be an integer of at least 1");
    const queue: JobQueue<ClaimedDelivery> = {
      claim: async (now, limit, leaseMs, owner) => {
        const claimed = await deliveries.claimDueDeliveries(now, limit, leaseMs, owner, {
          perWebhook,
          busy: this.#busy,
        });
        for (const d of claimed) this.#busy.set(d.webhookId, (this.#busy.get(d.webhookId) ?? 0) + 1);
        return claimed;
      },
      renew: (ids, owner, until) => deliveries.renewDeliveryLeases(ids, owner, until),
      owners: (now) => deliveries.listDeliveryLeaseOwners(now),
      release: (owners) => deliveries.releaseDeliveryLeases(owners),
    };
    const concurrency = options.concurrency ?? 10;
    const leaseMs = options.leaseMs ?? 30_000;
    this.#worker = new LeaseWorker(
      queue,
      {
        perform: (d) => this.#attempt(d),
        record: (d, attempt) => this.#record(d, attempt),
        settled: (d) => {
          const held = this.#busy.get(d.webhookId) ?? 1;
          if (held > 1) this.#busy.set(d.webhookId, held - 1);
          else this.#busy.delete(d.webhookId);
          // Claims pass over the deliveries of endpoints at their cap, and a claim that came back
          // short does not look again until the next poll: look now that this endpoint has room.
          this.#worker.wake();
        },
      },
      deps.clock,
      deps.logger,
      {
        name: "webhook deliveries",
        concurrency,
        leaseMs,
        // An attempt takes at most the sender's deadline (10 s): start one only while half a lease is left.
        startMarginMs: leaseMs / 2,
        ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      },
    );
    this.#outcomes = new GroupCommit((outcomes) => deliveries.recordDeliveryOutcomes(outcomes), {
      maxBatch: MAX_OUTCOMES_PER_WRITE,
      maxDelayMs: OUTCOME_WRITE_DELAY_MS,
      writeNow: (waiting) => !this.#worker.running || this.#worker.performing === 0 || waiting >= 2 * concurrency,
    });
  }

  get running(): boolean {
    return this.#worker.running;
  }

  get retryPolicy(): Readonly<RetryPolicy> {
    return this.#retry;
  }

  /** Starts claiming and sending in the background, woken by this process's new deliveries. */
  start(): void {
    if (this.#worker.running) return;
    this.#unsubscribe = this.#storage.webhookDeliveries.onDeliveriesStored(() => this.wake());
    this.#worker.start();
  }

  /** Stops claiming, finishes the attempts under way and stores their outcomes. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    const stopped = this.#worker.stop();
    this.#outcomes.flush();
    await stopped;
  }

  /** Looks for due deliveries now instead of at the next poll. */
  wake(): void {
    this.#worker.wake();
  }

  /** One round for tests and scripts: claims what is due, sends it and records the outcomes; how many were claimed. */
  runOnce(): Promise<number> {
    return this.#worker.runOnce();
  }

  async #attempt(delivery: ClaimedDelivery): Promise<Attempt> {
    const { webhook, event } = delivery;
    if (webhook.status !== "enabled") return { kind: "skipped", reason: "the endpoint is disabled" };
    if (delivery.attempts > this.#retry.maxAttempts)
      // Earlier claims ended without an outcome (their process died mid-attempt each time).
      return { kind: "skipped", reason: `gave up after ${this.#retry.maxAttempts} attempts without an outcome` };
    const body = JSON.stringify({ type: event.type, created_at: isoFromMs(event.createdAt), data: event.data });
    const now = this.#clock.now();
    const headers = signedHeaders(webhook, event.id, body, now);
    const result = await this.#sender.send(webhook.endpoint, headers, body);
    return { kind: "sent", sentAt: now, result };
  }

  async #record(delivery: ClaimedDelivery, attempt: Attempt): Promise<void> {
    const base = { id: delivery.id, webhookId: delivery.webhookId, leaseOwner: this.#worker.owner };
    let outcome: DeliveryOutcome;
    if (attempt.kind === "skipped") {
      outcome = { ...base, next: { status: "failed" } };
      this.#logger.warn("webhook delivery failed without an attempt", { id: delivery.id, reason: attempt.reason });
    } else {
      const { result } = attempt;
      const now = this.#clock.now();
      const ok = result.statusCode >= 200 && result.statusCode < 300;
      const retry = !ok && delivery.attempts < this.#retry.maxAttempts;
      outcome = {
        ...base,
        attempt: {
          id: uuidv7(now),
          deliveryId: delivery.id,
          webhookId: delivery.webhookId,
          eventId: delivery.eventId,
          sentAt: attempt.sentAt,
          statusCode: result.statusCode,
          durationMs: result.durationMs,
          response: result.response,
        },
        next: ok
          ? { status: "success" }
          : retry
            ? {
                status: "attempting",
                nextAttemptAt: now + retryDelay(this.#retry, delivery.attempts),
              }
            : { status: "failed" },
        endpoint: ok
          ? { succeeded: true }
          : {
              failedAt: now,
              disableIfFailingSince: now - this.#disableAfterMs,
            },
      };
    }
    const stored = await this.#outcomes.add(outcome);
    if (!stored)
      this.#logger.warn("webhook delivery: outcome not recorded; the lease ended or the delivery was replayed", {
        id: delivery.id,
      });
  }
}
