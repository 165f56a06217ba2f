import { errorFields, type Logger } from "../../ports/logger.js";
import type { FlagStore } from "./flag-store.js";
import type { Flag } from "../schema.js";

/**
 * The change feed behind `GET /v1/flags/_stream` (docs/flags.md "Streaming"): one copy of every
 * flag and the flags revision it stands at, kept current for any number of subscribers, each told
 * every change as a batch labelled with the revision it reaches. Fed by writes of this process
 * (the FlagStore's change feed, then one read of the revision and the flags) and by the StoreSync
 * reloads that follow other processes' writes (LISTEN/NOTIFY on PostgreSQL, the revision poll
 * elsewhere), so a subscriber hears of a write in any process.
 *
 * Revisions: a state read as (revision R, then every flag) holds every write up to R, so a batch
 * labelled R is a safe resume point; a later batch is only taken when its revision is higher.
 * The last batches are kept, so a subscriber coming back with the revision it last saw gets what
 * it missed; one from further back, or whose revision this process never labelled a batch with
 * (another process drew the lines elsewhere), gets a fresh snapshot instead.
 * Starts on the first subscriber; `close()` (from `fp.close()`) ends every subscription.
 */

export type FlagStreamChange =
  { type: "flag.created" | "flag.updated"; key: string; flag: Flag } | { type: "flag.deleted"; key: string };

export interface FlagStreamBatch {
  revision: number;
  changes: FlagStreamChange[];
}

/** Where a subscription starts: the whole state, or the batches after the revision it gave. */
export type FlagStreamStart =
  | { kind: "snapshot"; revision: number; flags: Flag[] }
  | { kind: "replay"; revision: number; batches: FlagStreamBatch[] };

/**
 * Told in order; MUST NOT throw (a throwing subscriber is dropped). `start` is told synchronously;
 * with many subscribers, `changed` reaches the later ones in slices (see #drainFanOut).
 */
export interface FlagStreamSubscriber {
  /** Called once, before any change, with where the subscription starts. */
  start(start: FlagStreamStart): void;
  changed(batch: FlagStreamBatch): void;
  /** Every `keepAliveMs`, so idle connections show they are alive. */
  keepAlive(): void;
  /** The stream ended (`fp.close()`); nothing follows. */
  closed(): void;
}

export interface FlagStreamOptions {
  /** Time between keep-alives. Default 15 s. */
  keepAliveMs?: number;
  /** Batches kept for resuming subscribers. Default 1,000. */
  replayBatches?: number;
}

export interface FlagStreamSubscription {
  close(): void;
}

/** Subscribers told of a batch before the fan-out yields to other work. */
const FAN_OUT_SLICE = 200;

/** Code-point order, as the flag list and the snapshot route sort keys. */
function byKey(a: Flag, b: Flag): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export class FlagStream {
  readonly #store: FlagStore;
  readonly #logger: Logger;
  readonly #keepAliveMs: number;
  readonly #replayBatches: number;
  readonly #subscribers = new Set<FlagStreamSubscriber>();
  #flags = new Map<string, { flag: Flag; json: string }>();
  #revision = -1;
  /** Kept batches, oldest first; `#logStart` is the revision before the first of them. */
  #log: FlagStreamBatch[] = [];
  #logStart = -1;
  /** `#flags` ordered by key, for the revision it was made at. */
  #sorted: { revision: number; flags: readonly Flag[] } | undefined;
  #starting: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;
  #keepAliveTimer: NodeJS.Timeout | undefined;
  #reading: Promise<void> | undefined;
  #readAgain = false;
  #closed = false;
  /** Batches still being told to the subscribers listed when each was made. */
  readonly #fanOut: { batch: FlagStreamBatch; subscribers: FlagStreamSubscriber[]; next: number }[] = [];

  constructor(store: FlagStore, logger: Logger, options: FlagStreamOptions = {}) {
    this.#store = store;
    this.#logger = logger;
    this.#keepAliveMs = options.keepAliveMs ?? 15_000;
    this.#replayBatches = options.replayBatches ?? 1_000;
  }

  /** Subscribers now. */
  get size(): number {
    return this.#subscribers.size;
  }

  /**
   * Subscribes, from `lastRevision` (the last batch or snapshot revision the subscriber saw) when
   * it can be replayed, else from a snapshot. Rejects when the first load fails or after close().
   */
  async subscribe(subscriber: FlagStreamSubscriber, lastRevision?: number): Promise<FlagStreamSubscription> {
    this.#starting ??= this.#start();
    await this.#starting;
    if (this.#closed) throw new Error("the flag stream is closed");
    subscriber.start(this.#startFrom(lastRevision));
    this.#subscribers.add(subscriber);
    return { close: () => void this.#subscribers.delete(subscriber) };
  }

  /**
   * The current state: the flags revision and every flag, ordered by key (what `GET
   * /v1/flags/_snapshot` serves). Starts the stream on the first call (one storage read); after
   * that no storage read while nothing changes. A read that a write of this process started is
   * waited for, so the state holds every write this process has finished. The same `flags` list
   * is answered until the revision moves.
   */
  async state(): Promise<{ revision: number; flags: readonly Flag[] }> {
    this.#starting ??= this.#start();
    await this.#starting;
    if (this.#reading) await this.#reading;
    if (this.#sorted?.revision !== this.#revision)
      this.#sorted = { revision: this.#revision, flags: [...this.#flags.values()].map((f) => f.flag).sort(byKey) };
    return this.#sorted;
  }

  /** A state read elsewhere (StoreSync's reload): the revision first, then every flag. */
  offer(revision: number, flags: readonly Flag[]): void {
    if (this.#starting && !this.#closed) this.#apply(revision, flags);
  }

  /** Ends every subscription and stops. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#keepAliveTimer);
    this.#unsubscribe?.();
    for (const subscriber of [...this.#subscribers]) this.#tell(subscriber, (s) => s.closed());
    this.#subscribers.clear();
  }

  async #start(): Promise<void> {
    this.#unsubscribe = this.#store.subscribe(() => void this.#read());
    try {
      await this.#readOnce();
    } catch (error) {
      this.#unsubscribe();
      this.#starting = undefined; // the next subscriber tries again
      throw error;
    }
    this.#logStart = this.#revision;
    this.#keepAliveTimer = setInterval(() => {
      for (const subscriber of [...this.#subscribers]) this.#tell(subscriber, (s) => s.keepAlive());
    }, this.#keepAliveMs);
    this.#keepAliveTimer.unref();
  }

  /** Serialised reads after local writes: a write during a read makes it read once more. */
  #read(): Promise<void> {
    this.#readAgain = true;
    this.#reading ??= (async () => {
      while (this.#readAgain && !this.#closed) {
        this.#readAgain = false;
        await this.#readOnce().catch((error: unknown) =>
          // The next write, or the next StoreSync reload, reads again.
          this.#logger.warn("flag stream: reading the flags after a write failed", errorFields(error)),
        );
      }
    })().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  async #readOnce(): Promise<void> {
    const revision = await this.#store.revision();
    if (revision <= this.#revision) return;
    this.#apply(revision, await this.#store.all());
  }

  #apply(revision: number, flags: readonly Flag[]): void {
    if (revision <= this.#revision || this.#closed) return;
    const first = this.#revision < 0;
    const next = new Map<string, { flag: Flag; json: string }>();
    const changes: FlagStreamChange[] = [];
    for (const flag of flags) {
      const json = JSON.stringify(flag);
      const old = this.#flags.get(flag.key);
      next.set(flag.key, old?.json === json ? old : { flag, json });
      if (old === undefined) changes.push({ type: "flag.created", key: flag.key, flag });
      else if (old.json !== json) changes.push({ type: "flag.updated", key: flag.key, flag });
    }
    for (const key of this.#flags.keys()) if (!next.has(key)) changes.push({ type: "flag.deleted", key });
    this.#flags = next;
    this.#revision = revision;
    if (first) return;
    const batch: FlagStreamBatch = { revision, changes };
    this.#log.push(batch);
    if (this.#log.length > this.#replayBatches) this.#logStart = this.#log.shift()!.revision;
    if (changes.length === 0) return;
    this.#fanOut.push({ batch, subscribers: [...this.#subscribers], next: 0 });
    if (this.#fanOut.length === 1) this.#drainFanOut();
  }

  /**
   * Tells subscribers of the pending batches, in order, {@link FAN_OUT_SLICE} at a time, yielding
   * to the event loop in between: with thousands of open streams one batch written to all of them
   * at once held every other request (evaluation included) for tens of milliseconds. A subscriber
   * gets each batch in order; one that left meanwhile is skipped; one that joined after a batch
   * started from a state that already held it.
   */
  #drainFanOut = (): void => {
    let budget = FAN_OUT_SLICE;
    while (budget > 0 && this.#fanOut.length > 0) {
      const job = this.#fanOut[0]!;
      for (; budget > 0 && job.next < job.subscribers.length; budget--) {
        const subscriber = job.subscribers[job.next++]!;
        if (this.#subscribers.has(subscriber)) this.#tell(subscriber, (s) => s.changed(job.batch));
      }
      if (job.next === job.subscribers.length) this.#fanOut.shift();
    }
    if (this.#fanOut.length > 0) setImmediate(this.#drainFanOut);
  };

  #startFrom(lastRevision: number | undefined): FlagStreamStart {
    const revision = this.#revision;
    if (lastRevision !== undefined && lastRevision <= revision) {
      const known = lastRevision === this.#logStart || this.#log.some((b) => b.revision === lastRevision);
      if (known)
        return {
          kind: "replay",
          revision,
          batches: this.#log.filter((b) => b.revision > lastRevision && b.changes.length > 0),
        };
    }
    return { kind: "snapshot", revision, flags: [...this.#flags.values()].map((f) => f.flag).sort(byKey) };
  }

  #tell(subscriber: FlagStreamSubscriber, call: (s: FlagStreamSubscriber) => void): void {
    try {
      call(subscriber);
    } catch (error) {
      this.#subscribers.delete(subscriber);
      this.#logger.error("flag stream: a subscriber failed and was dropped", errorFields(error));
    }
  }
}
