import { errorFields, type Logger } from "../../ports/logger.js";
import type { FlagWatcher, Storage } from "../../ports/storage/index.js";
import type { FlagFeed } from "./flag-client.js";
import type { FlagStore } from "../store/flag-store.js";
import type { Flag } from "../schema.js";

/**
 * Keeps a FlagClient current with a FlagStore:
 * - writes through this store reach the snapshot at once, through the store's change feed;
 * - writes by other processes are noticed through the storage's `watchFlags` capability
 *   (PostgreSQL LISTEN/NOTIFY) when it has one, and by polling the cheap flags revision
 *   otherwise (every `pollIntervalMs`, default 1 s; every `watchedPollIntervalMs`, default 30 s,
 *   as a safety net while a watch is live).
 * A reload reads the revision, then every flag; it is skipped when the revision has not moved.
 */

export interface StoreSyncOptions {
  /** Revision poll period without a live watch. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Revision poll period while a watch (LISTEN/NOTIFY) is live. Default 30,000 ms. */
  watchedPollIntervalMs?: number;
}

export const DEFAULT_POLL_INTERVAL_MS = 1_000;
export const DEFAULT_WATCHED_POLL_INTERVAL_MS = 30_000;
/** Reloads that raced with writes of this process before one is accepted anyway (the next check repairs it). */
const MAX_RACING_RELOADS = 3;

export class StoreSync {
  readonly #store: FlagStore;
  readonly #storage: Storage;
  readonly #feed: FlagFeed;
  readonly #logger: Logger;
  readonly #pollMs: number;
  readonly #watchedPollMs: number;
  /** Counts change-feed events, so a reload that overlapped a local write is recognised. */
  #localWrites = 0;
  /** Revision and local-write count the snapshot was last loaded at. */
  #loadedRevision: number | undefined;
  #loadedAtWrite = -1;
  #running: Promise<void> | undefined;
  #wanted = false;
  #unsubscribe: (() => void) | undefined;
  #watcher: FlagWatcher | undefined;
  #watching = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failing = false;
  #closed = false;
  readonly #reloadListeners = new Set<(revision: number, flags: readonly Flag[]) => void>();

  constructor(store: FlagStore, storage: Storage, feed: FlagFeed, logger: Logger, options: StoreSyncOptions = {}) {
    this.#store = store;
    this.#storage = storage;
    this.#feed = feed;
    this.#logger = logger;
    this.#pollMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.#watchedPollMs = options.watchedPollIntervalMs ?? DEFAULT_WATCHED_POLL_INTERVAL_MS;
    feed.onClose(() => this.close());
  }

  /** Subscribes to the change feed, loads the first snapshot (rejecting if that fails), then watches and polls. */
  async start(): Promise<void> {
    this.#unsubscribe = this.#store.subscribe((change) => {
      this.#localWrites += 1;
      if (change.type === "deleted") this.#feed.remove(change.key);
      else this.#feed.upsert(change.flag);
    });
    await this.#reload();
    if (this.#closed) return;
    this.#watcher = this.#storage.watchFlags?.({
      changed: () => void this.refresh(),
      listening: () => {
        this.#watching = true;
        this.#logger.info("watching flag changes");
        void this.refresh(); // changes made while the watch was down were not reported
        this.#schedule();
      },
      lost: (error) => {
        if (this.#watching)
          this.#logger.warn("lost the flag change watch; polling until it is back", errorFields(error));
        this.#watching = false;
        this.#schedule();
      },
    });
    this.#schedule();
  }

  /**
   * Calls `listener` with each state a reload reads (the revision, read first, then every flag):
   * how the flag stream hears of other processes' writes without reading them again.
   */
  onReload(listener: (revision: number, flags: readonly Flag[]) => void): void {
    this.#reloadListeners.add(listener);
  }

  /** Checks the revision now and reloads when it moved. Never rejects. */
  refresh(): Promise<void> {
    return this.#reload().then(
      () => {
        if (this.#failing) this.#logger.info("flag snapshot refreshed again");
        this.#failing = false;
        this.#feed.fresh();
      },
      (error: unknown) => {
        if (!this.#failing)
          this.#logger.warn("cannot refresh the flag snapshot; serving the last one", errorFields(error));
        this.#failing = true;
        this.#feed.stale(error);
      },
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe?.();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const watcher = this.#watcher;
    this.#watcher = undefined;
    await watcher?.close();
    await this.#running?.catch(() => undefined);
  }

  /** Serialises reloads: a call during one makes it run once more afterwards. */
  #reload(): Promise<void> {
    this.#wanted = true;
    this.#running ??= this.#drain().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #drain(): Promise<void> {
    let racing = 0;
    while (this.#wanted && !this.#closed) {
      this.#wanted = false;
      const writes = this.#localWrites;
      const revision = await this.#store.revision();
      if (revision === this.#loadedRevision && writes === this.#loadedAtWrite) continue;
      const flags = await this.#store.all();
      if (this.#closed) return;
      if (this.#localWrites !== writes && ++racing < MAX_RACING_RELOADS) {
        // A write of this process landed while reading: the snapshot already has it, and this
        // read may not. Read again rather than step back.
        this.#wanted = true;
        continue;
      }
      this.#feed.replace(flags);
      for (const listener of this.#reloadListeners) listener(revision, flags);
      this.#loadedRevision = revision;
      this.#loadedAtWrite = writes;
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        void this.refresh().finally(() => this.#schedule());
      },
      this.#watching ? this.#watchedPollMs : this.#pollMs,
    );
    this.#timer.unref?.();
  }
}
