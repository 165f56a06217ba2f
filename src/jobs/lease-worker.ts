import type { Clock } from "../ports/clock.js";
import { FlagpostError } from "../errors.js";
import { errorFields, type Logger } from "../ports/logger.js";
import type { JobClaim, JobHandler, JobQueue, LeasedJob, LeaseWorkerOptions } from "./job-queue.js";
import { checkWorkerTimes, releaseDeadOwners, renewHeld } from "./lease-upkeep.js";
import { jobOwner, ownerOfThisProcess } from "./owner.js";

/**
 * Limits, in multiples of `concurrency`: one claim takes up to CLAIM_SIZE × concurrency jobs into
 * the local queue (when less than one concurrency's worth is queued), and the worker holds at
 * most HELD_LIMIT × concurrency (queued, being performed, or waiting for their record).
 */
const CLAIM_SIZE = 2;
const HELD_LIMIT = 4;

/**
 * Runs lease-claimed jobs: claims due jobs with a lease (so several workers, in one process or
 * many, never run the same job at once), performs up to `concurrency` at a time, records each
 * result, and renews the leases it holds while the process lives. Wakes on `wake()` (call it
 * after enqueueing) or every `pollIntervalMs`. `stop()` stops claiming and drains.
 *
 * Throughput comes from doing storage work in groups: a claim takes 2 × `concurrency` jobs into a
 * local queue, a job gives up its slot as soon as `perform` is done, and `record` can join a
 * group commit, whose write can also make the next claim (`claimAlong`: one commit for both).
 * At any time the worker holds at most 4 × `concurrency` jobs.
 *
 * ```ts
 * const worker = new LeaseWorker(queue, { perform: deliver, record: store }, clock, logger,
 *   { name: "webhook deliveries", leaseMs: 30_000, startMarginMs: 15_000 });
 * worker.start(); … worker.wake(); … await worker.stop();
 * ```
 */
export class LeaseWorker<J extends LeasedJob, R> {
  readonly owner: string;
  readonly #queueStore: JobQueue<J>;
  readonly #handler: JobHandler<J, R>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #name: string;
  readonly #concurrency: number;
  readonly #leaseMs: number;
  readonly #heartbeatMs: number;
  readonly #startMarginMs: number;
  readonly #pollIntervalMs: number;

  /** Claimed, not yet performed. */
  #queue: J[] = [];
  /** Every job this worker holds (queued, performing, recording) and when its lease ends, in ms. */
  readonly #held = new Map<string, number>();
  #performing = 0;
  /** One per job from the start of its perform until its record is stored (or failed to be). */
  readonly #inFlight = new Set<Promise<void>>();
  #running = false;
  #claiming: Promise<void> | undefined;
  /** There may be due jobs: set by wake(), the poll timer and a claim that came back full. */
  #due = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #renewing: Promise<void> | undefined;
  #idle: (() => void)[] = [];

  constructor(
    queue: JobQueue<J>,
    handler: JobHandler<J, R>,
    clock: Clock,
    logger: Logger,
    options: LeaseWorkerOptions,
  ) {
    this.#queueStore = queue;
    this.#handler = handler;
    this.#clock = clock;
    this.#logger = logger;
    this.#name = options.name;
    this.#concurrency = options.concurrency ?? 10;
    this.#leaseMs = options.leaseMs;
    this.#heartbeatMs = options.heartbeatMs ?? Math.floor(options.leaseMs / 3);
    this.#startMarginMs = options.startMarginMs ?? 0;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.owner = options.owner === undefined ? jobOwner() : ownerOfThisProcess(options.owner);
    checkWorkerTimes(this.#name, this.#concurrency, this.#leaseMs, this.#startMarginMs, this.#heartbeatMs);
    if (!(this.#pollIntervalMs > 0))
      throw new FlagpostError("validation_error", `${this.#name}: pollIntervalMs must be above 0`);
  }

  get running(): boolean {
    return this.#running;
  }

  /** Jobs being performed or performed and not yet recorded. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Jobs being performed (holding a slot). */
  get performing(): number {
    return this.#performing;
  }

  /** Starts claiming, performing and renewing in the background. Does nothing when running. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#pollTimer = setInterval(() => this.wake(), this.#pollIntervalMs);
    if (this.#queueStore.renew || this.#queueStore.release)
      this.#heartbeatTimer = setInterval(() => void this.#heartbeat(), this.#heartbeatMs);
    // Dead predecessors' jobs first, so the first claim takes them.
    this.#claiming = this.#releaseDead().finally(() => {
      this.#claiming = undefined;
      this.wake();
    });
  }

  /** Stops claiming, performs the jobs already claimed, and resolves once every result is recorded. */
  async stop(): Promise<void> {
    this.#running = false;
    clearInterval(this.#pollTimer);
    this.#pollTimer = undefined;
    await this.#claiming;
    this.#pump();
    await this.#drain();
    clearInterval(this.#heartbeatTimer);
    this.#heartbeatTimer = undefined;
    await this.#renewing;
  }

  /** Looks for due jobs now instead of at the next poll. */
  wake(): void {
    this.#due = true;
    this.#pump();
  }

  /** One round for tests and scripts: claims what there is room for, performs and records it. Resolves with how many were claimed. */
  async runOnce(): Promise<number> {
    const claimed = await this.#claim(this.#concurrency - this.#inFlight.size - this.#queue.length, false);
    await Promise.all(claimed.map((job) => this.#track(job)));
    return claimed.length;
  }

  /** Renews the leases of every job held now (the heartbeat does this on its own). */
  renewNow(): Promise<void> {
    return this.#renew();
  }

  /** Frees the leases of dead processes on this host (start and the heartbeat do this on their own); how many. */
  releaseDead(): Promise<number> {
    return releaseDeadOwners(this.#queueStore, this.#clock.now(), this.#logger, this.#name);
  }

  #releaseDead(): Promise<void> {
    return this.releaseDead().then(
      (freed) => {
        if (freed > 0) this.#due = true;
      },
      (error: unknown) =>
        this.#logger.warn(`${this.#name}: looking for leases of dead processes failed`, errorFields(error)),
    );
  }

  async #heartbeat(): Promise<void> {
    await this.#renew();
    await this.#releaseDead();
    if (this.#due) this.#pump();
  }

  /** Starts queued jobs while there are free slots, and claims more when the queue runs low. */
  #pump(): void {
    const concurrency = this.#concurrency;
    while (this.#performing < concurrency && this.#queue.length > 0) void this.#track(this.#queue.shift()!);
    const room = this.#claimRoom(0);
    if (room <= 0) return;
    // A write of results that claims along is waiting (claimAlong): its commit claims instead.
    if (this.#handler.claimAlongSoon?.(this.#queue.length === 0 && this.#performing < concurrency)) return;
    this.#due = false; // a wake() during the claim sets it again
    this.#claiming = this.#claim(room, true).then(
      () => undefined,
      (error: unknown) =>
        this.#logger.error(`${this.#name}: claiming due jobs failed; trying again`, errorFields(error)),
    );
    void this.#claiming.finally(() => {
      this.#claiming = undefined;
      this.#pump();
    });
  }

  /**
   * For a write of results that can also claim, in the same commit (the outbox's outcomes and its
   * next emails): calls `write` with the claim to make, or with none when the worker would not
   * claim now (stopped, a claim under way, enough queued, nothing due), and queues what it
   * claimed. `finishing`: how many held jobs the write records, which then make room.
   */
  async claimAlong<T>(
    finishing: number,
    write: (claim: JobClaim | undefined) => Promise<{ result: T; claimed: J[] }>,
  ): Promise<T> {
    const room = this.#claimRoom(finishing);
    if (room <= 0) return (await write(undefined)).result;
    const now = this.#clock.now();
    this.#due = false;
    let done!: () => void;
    this.#claiming = new Promise((resolve) => (done = resolve));
    try {
      const claim = { now, limit: room, leaseMs: this.#leaseMs, owner: this.owner };
      const { result, claimed } = await write(claim);
      this.#take(claimed, now, room, true);
      return result;
    } catch (error) {
      this.#due = true; // nothing was claimed
      throw error;
    } finally {
      this.#claiming = undefined;
      done();
      this.#pump();
    }
  }

  /** How many jobs a claim would take now (0: none), counting `finishing` held jobs as let go. */
  #claimRoom(finishing: number): number {
    const concurrency = this.#concurrency;
    const held = this.#queue.length + this.#inFlight.size - finishing;
    if (!this.#running || !this.#due || this.#claiming || this.#queue.length >= concurrency) return 0;
    return Math.max(0, Math.min(CLAIM_SIZE * concurrency, HELD_LIMIT * concurrency - held));
  }

  /** Claims up to `room` jobs; queues them, or leaves them to the caller to perform (runOnce). */
  async #claim(room: number, queue: boolean): Promise<J[]> {
    if (room <= 0) return [];
    const now = this.#clock.now();
    const claimed = await this.#queueStore.claim(now, room, this.#leaseMs, this.owner);
    this.#take(claimed, now, room, queue);
    return claimed;
  }

  /** Holds the jobs a claim made at `now` leased and, with `queue`, queues them. */
  #take(claimed: readonly J[], now: number, room: number, queue: boolean): void {
    for (const job of claimed) this.#held.set(job.id, job.leaseUntil ?? now + this.#leaseMs);
    if (!queue) return;
    if (claimed.length === room) this.#due = true; // maybe more waiting
    this.#queue.push(...claimed);
  }

  #track(job: J): Promise<void> {
    const work = this.#process(job).catch((error: unknown) => {
      // The result could not be stored: the lease runs out and the job is claimed again.
      this.#logger.error(`${this.#name}: recording a result failed; the job is retried when its lease ends`, {
        id: job.id,
        ...errorFields(error),
      });
    });
    this.#inFlight.add(work);
    void work.finally(() => {
      this.#inFlight.delete(work);
      this.#held.delete(job.id);
      this.#handler.settled?.(job);
      if (this.#inFlight.size === 0 && this.#queue.length === 0) for (const resolve of this.#idle.splice(0)) resolve();
      this.#pump();
    });
    return work;
  }

  async #drain(): Promise<void> {
    while (this.#inFlight.size > 0 || this.#queue.length > 0)
      await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  async #process(job: J): Promise<void> {
    const leaseLeft = (this.#held.get(job.id) ?? Number.POSITIVE_INFINITY) - this.#clock.now();
    if (leaseLeft <= this.#startMarginMs) {
      // Waited so long (or lost its lease in a renewal) that the job could outlive the lease and
      // another worker could run it too. Leave it: it is claimed again once the lease ends.
      this.#logger.warn(`${this.#name}: a claimed job waited too long to start; it runs when its lease ends`, {
        id: job.id,
      });
      return;
    }
    let result: R;
    this.#performing += 1;
    try {
      result = await this.#handler.perform(job);
    } finally {
      this.#performing -= 1;
    }
    // The slot is free: the next job starts while this result is stored, and a claim can join its write.
    const recording = this.#handler.record(job, result);
    this.#pump();
    await recording;
  }

  /** One heartbeat: extends every held lease; a job no longer held is not started. */
  #renew(): Promise<void> {
    if (!this.#queueStore.renew || this.#renewing || this.#held.size === 0) return this.#renewing ?? Promise.resolve();
    const until = this.#clock.now() + this.#leaseMs;
    this.#renewing = renewHeld(this.#queueStore, this.#held, this.owner, until, this.#logger, this.#name).finally(
      () => {
        this.#renewing = undefined;
      },
    );
    return this.#renewing;
  }
}
