import { z } from "zod";
import type { Clock } from "../../ports/clock.js";
import { FlagpostError, notFound } from "../../errors.js";
import { boundSchema } from "../../events/schema.js";
import type { FlagInsightTotal, Storage } from "../../ports/storage/index.js";
import { isoFromMs } from "../../time.js";
import { parseInput, validationError } from "../../validation.js";
import { HOUR_MS, type InsightsRecorder } from "./insights-recorder.js";
import { FLAG_KEY_PATTERN, type Flag } from "../schema.js";

/**
 * Reading the evaluation counts (docs/flags.md "Insights"): a flag's hourly counts and when it
 * was last evaluated, and which flags are stale. Only hours from the flag's creation on are read,
 * so a flag created again under a deleted one's key starts afresh.
 */

export const DEFAULT_STALE_AFTER_DAYS = 30;
const DAY_MS = 86_400_000;
/** The widest window one request reads: 93 days of hours. */
const MAX_WINDOW_MS = 93 * DAY_MS;

export interface HourlyInsight {
  /** Start of the hour, UTC. */
  hour: string;
  evaluations: number;
  on: number;
  off: number;
  /** The "on" answers per variant, for a flag with variants (absent otherwise). */
  variants?: Record<string, number>;
}

export type StaleReason = "not_evaluated" | "constant";

export interface Staleness {
  stale: boolean;
  /** Why, when stale: no evaluation in the window, or every evaluation in it gave one result. */
  reason?: StaleReason;
  /** That one result, when the reason is "constant": "on", "off" or "variant:<key>". */
  result?: string;
}

export interface FlagInsightsView extends Staleness {
  flagKey: string;
  from: string;
  to: string;
  /** The newest evaluation stored (within the flush interval), or null when none is. */
  lastEvaluatedAt: string | null;
  hours: HourlyInsight[];
  /** How often this server stores evaluation counts (`FLAGPOST_INSIGHTS_FLUSH_MS`): the newest counts lag by up to this. */
  flushIntervalMs: number;
}

export interface StaleFlag {
  key: string;
  reason: StaleReason;
  result?: string;
  lastEvaluatedAt: string | null;
}

export const insightsQuerySchema = z
  .strictObject({ from: boundSchema.optional(), to: boundSchema.optional() })
  .superRefine((query, ctx) => {
    if (query.from !== undefined && query.to !== undefined && query.from >= query.to)
      ctx.addIssue({ code: "custom", path: ["from"], message: 'must be before "to"' });
  });
export type InsightsQuery = z.input<typeof insightsQuerySchema>;

const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

function resultOf(total: Pick<FlagInsightTotal, "enabled" | "variant">): string {
  return total.variant !== null ? `variant:${total.variant}` : total.enabled ? "on" : "off";
}

export class FlagInsights {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #recorder: InsightsRecorder;
  readonly #staleAfterMs: number;

  constructor(storage: Storage, clock: Clock, recorder: InsightsRecorder, staleAfterDays = DEFAULT_STALE_AFTER_DAYS) {
    this.#storage = storage;
    this.#clock = clock;
    this.#recorder = recorder;
    if (!Number.isInteger(staleAfterDays) || staleAfterDays < 1 || staleAfterDays > 3650)
      throw new FlagpostError("validation_error", "insights.staleAfterDays must be an integer from 1 to 3650");
    this.#staleAfterMs = staleAfterDays * DAY_MS;
  }

  /** Stores this process's counts now, instead of at the next flush. */
  flush(): Promise<void> {
    return this.#recorder.flush();
  }

  /**
   * The flag's hourly counts for the hours starting in [from, to) (default: the stale window,
   * the last `staleAfterDays` days), only hours with evaluations, oldest first; 404 for a flag
   * that does not exist. At most 93 days per request.
   */
  async get(key: string, query: InsightsQuery = {}): Promise<FlagInsightsView> {
    const parsed = parseInput(insightsQuerySchema, query);
    const now = this.#clock.now();
    const to = parsed.to ?? now;
    const from = parsed.from ?? to - this.#staleAfterMs;
    if (from >= to) throw validationError([{ path: "from", message: 'must be before "to"' }]);
    if (to - from > MAX_WINDOW_MS)
      throw validationError([{ path: "from", message: 'must be at most 93 days before "to"' }]);
    const flag = FLAG_KEY_PATTERN.test(key) ? await this.#storage.flags.get(key) : undefined;
    if (!flag) throw notFound("Flag", key);
    const born = hourOf(flag.createdAt);
    const rows = await this.#storage.flagInsights.hourly(key, Math.max(hourOf(from), born), to);
    const hours: HourlyInsight[] = [];
    for (const row of rows) {
      let hour = hours.at(-1);
      const start = isoFromMs(row.hour);
      if (hour?.hour !== start) hours.push((hour = { hour: start, evaluations: 0, on: 0, off: 0 }));
      hour.evaluations += row.count;
      if (!row.enabled) hour.off += row.count;
      else hour.on += row.count;
      if (row.variant !== null) (hour.variants ??= {})[row.variant] = (hour.variants[row.variant] ?? 0) + row.count;
    }
    const [staleness, lastEvaluatedAt] = await Promise.all([
      this.#staleness([flag], now).then((all) => all.get(key)!),
      this.#lastEvaluated(key, born),
    ]);
    const flushIntervalMs = this.#recorder.intervalMs;
    return {
      flagKey: key,
      from: isoFromMs(from),
      to: isoFromMs(to),
      lastEvaluatedAt,
      ...staleness,
      hours,
      flushIntervalMs,
    };
  }

  /** Which of these flags are stale now (docs/flags.md "Insights" says exactly how). */
  async staleKeys(flags: readonly Pick<Flag, "key" | "createdAt">[]): Promise<Set<string>> {
    const all = await this.#staleness(flags, this.#clock.now());
    return new Set([...all].filter(([, s]) => s.stale).map(([key]) => key));
  }

  /** Every stale flag, by key, with the reason (the `flagpost flags stale` command). */
  async stale(): Promise<StaleFlag[]> {
    const stale: StaleFlag[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.#storage.flags.list({ after, limit: 1000 });
      const marks = await this.#staleness(page, this.#clock.now());
      for (const flag of page) {
        const s = marks.get(flag.key)!;
        if (!s.stale) continue;
        const lastEvaluatedAt = await this.#lastEvaluated(flag.key, hourOf(flag.createdAt));
        stale.push({ key: flag.key, reason: s.reason!, ...(s.result ? { result: s.result } : {}), lastEvaluatedAt });
      }
      if (page.length < 1000) return stale;
      after = page.at(-1)!.key;
    }
  }

  /**
   * A flag created at least `staleAfterDays` ago is stale when the hours that start at or after
   * (now − staleAfterDays), rounded down to the hour, hold no evaluation ("not_evaluated"), or
   * hold evaluations that all gave one result ("constant").
   */
  async #staleness(flags: readonly Pick<Flag, "key" | "createdAt">[], now: number): Promise<Map<string, Staleness>> {
    const since = now - this.#staleAfterMs;
    const old = flags.filter((f) => f.createdAt <= since);
    const marks = new Map<string, Staleness>(flags.map((f) => [f.key, { stale: false }]));
    if (old.length === 0) return marks;
    const totals = await this.#storage.flagInsights.totals(
      old.map((f) => f.key),
      hourOf(since),
    );
    const results = new Map<string, string[]>();
    for (const total of totals) {
      if (total.count <= 0) continue;
      const list = results.get(total.flagKey) ?? [];
      list.push(resultOf(total));
      results.set(total.flagKey, list);
    }
    for (const flag of old) {
      const seen = results.get(flag.key) ?? [];
      if (seen.length === 0) marks.set(flag.key, { stale: true, reason: "not_evaluated" });
      else if (seen.length === 1) marks.set(flag.key, { stale: true, reason: "constant", result: seen[0]! });
    }
    return marks;
  }

  async #lastEvaluated(key: string, bornHour: number): Promise<string | null> {
    const totals = await this.#storage.flagInsights.totals([key], bornHour);
    let last: number | null = null;
    for (const total of totals) if (last === null || total.lastAt > last) last = total.lastAt;
    return last === null ? null : isoFromMs(last);
  }
}
