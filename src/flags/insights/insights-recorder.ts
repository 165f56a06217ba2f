import type { Clock } from "../../ports/clock.js";
import { FlagpostError } from "../../errors.js";
import { errorFields, type Logger } from "../../ports/logger.js";
import type { FlagInsightCount, Storage } from "../../ports/storage/index.js";
import type { FlagClient } from "../client/flag-client.js";

/**
 * Stores the flag client's evaluation counts (docs/flags.md "Insights"). Evaluations only bump
 * integers in the compiled flags; every `flushIntervalMs` this takes them, files them under the
 * current hour, and adds them to storage in one call (summed with every other process's). At each
 * hour's end it files what was counted so far under the hour that ended, so an hour's row holds
 * that hour's evaluations give or take the timer's lateness. A failed write keeps its counts for
 * the next flush (up to MAX_PENDING rows, oldest dropped first, and logged); close() flushes.
 */

export interface InsightsOptions {
  /** How often counts are stored. Default 60,000 ms (FLAGPOST_INSIGHTS_FLUSH_MS for `flagpost serve`). */
  flushIntervalMs?: number;
  /** A flag is stale when not evaluated, or answering one result only, for this many days. Default 30. */
  staleAfterDays?: number;
}

export const DEFAULT_INSIGHTS_FLUSH_MS = 60_000;
export const HOUR_MS = 3_600_000;
/** Rows kept while storage refuses them; past this the oldest hours go first. */
const MAX_PENDING = 100_000;

const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

export class InsightsRecorder {
  readonly #client: FlagClient;
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  /** Counts taken from the client and not stored yet, by flag, hour and result. */
  #pending = new Map<string, FlagInsightCount>();
  #interval: ReturnType<typeof setInterval> | undefined;
  #hourTimer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> | undefined;
  #failing = false;
  #dropped = 0;
  /** Told each flag's count as it leaves the client (the metrics counters). */
  onTaken: ((flagKey: string, count: number) => void) | undefined;

  constructor(client: FlagClient, storage: Storage, clock: Clock, logger: Logger, options: InsightsOptions = {}) {
    const interval = options.flushIntervalMs ?? DEFAULT_INSIGHTS_FLUSH_MS;
    if (!Number.isInteger(interval) || interval < 1 || interval > 2 ** 31 - 1)
      throw new FlagpostError("validation_error", "insights.flushIntervalMs must be an integer from 1 to 2147483647");
    this.#client = client;
    this.#storage = storage;
    this.#clock = clock;
    this.#logger = logger;
    this.#intervalMs = interval;
  }

  /** How often this process stores its counts (`insights.flushIntervalMs`). */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** Starts the flush and hour timers; they never keep the process alive. */
  start(): void {
    if (this.#interval !== undefined) return;
    this.#interval = setInterval(() => void this.flush(), this.#intervalMs);
    this.#interval.unref();
    this.#scheduleHourEnd();
  }

  /** Moves the client's counts into memory (no storage write), so `onTaken` has seen every evaluation. */
  takeNow(): void {
    const now = this.#clock.now();
    this.#take(hourOf(now), now);
  }

  /** Stores what was counted until now. Resolves once stored, or once the failure is logged. */
  flush(): Promise<void> {
    this.#take(hourOf(this.#clock.now()), this.#clock.now());
    this.#flushing ??= this.#write().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  /** Stops the timers and stores what is counted and pending (once more if a flush was running). */
  async close(): Promise<void> {
    clearInterval(this.#interval);
    clearTimeout(this.#hourTimer);
    await this.#flushing;
    await this.flush();
  }

  #scheduleHourEnd(): void {
    const now = this.#clock.now();
    const end = hourOf(now) + HOUR_MS;
    this.#hourTimer = setTimeout(() => {
      this.#take(end - HOUR_MS, end - 1);
      this.#scheduleHourEnd();
    }, end - now);
    this.#hourTimer.unref();
  }

  /** Moves the client's counts into the pending rows of `hour`, seen last at `at`. */
  #take(hour: number, at: number): void {
    const counts = this.#client.takeCounts();
    if (counts.length === 0) return;
    for (const c of counts) {
      this.onTaken?.(c.flagKey, c.count);
      const variant = c.variant ?? null;
      const key = `${c.flagKey}\n${hour}\n${variant ?? (c.enabled ? "_on" : "_off")}`;
      const row = this.#pending.get(key);
      if (row === undefined)
        this.#pending.set(key, {
          flagKey: c.flagKey,
          hour,
          enabled: c.enabled,
          variant,
          count: c.count,
          lastAt: at,
        });
      else {
        row.count += c.count;
        row.lastAt = Math.max(row.lastAt, at);
      }
    }
    this.#bound();
  }

  async #write(): Promise<void> {
    while (this.#pending.size > 0) {
      const batch = this.#pending;
      this.#pending = new Map();
      try {
        await this.#storage.flagInsights.add([...batch.values()]);
        if (this.#failing) this.#logger.info("flag evaluation counts are stored again");
        this.#failing = false;
      } catch (error) {
        // Put them back, merged with what was counted meanwhile, for the next flush.
        for (const [key, row] of batch) {
          const newer = this.#pending.get(key);
          if (newer) newer.count += row.count;
          else this.#pending.set(key, row);
        }
        this.#bound();
        if (!this.#failing)
          this.#logger.warn("flag evaluation counts could not be stored; kept for the next flush", errorFields(error));
        this.#failing = true;
        return;
      }
    }
  }

  /** Drops the oldest hours' rows past MAX_PENDING, counting what is lost. */
  #bound(): void {
    if (this.#pending.size <= MAX_PENDING) return;
    const rows = [...this.#pending.entries()].sort(([, a], [, b]) => (a.hour < b.hour ? -1 : a.hour > b.hour ? 1 : 0));
    for (const [key, row] of rows.slice(0, rows.length - MAX_PENDING)) {
      this.#pending.delete(key);
      this.#dropped += row.count;
    }
    this.#logger.warn("flag evaluation counts dropped: storage refused them for too long", { dropped: this.#dropped });
  }
}
