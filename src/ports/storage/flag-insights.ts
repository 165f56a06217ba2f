import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// Flag insights: evaluation counts per flag, hour and result (docs/flags.md "Insights")

/** Evaluations of one flag, within one hour, with one result. */
export interface FlagInsightCount {
  flagKey: string;
  /** Start of the hour (UTC): a whole number of hours since the epoch, in milliseconds. */
  hour: EpochMs;
  enabled: boolean;
  /** The variant of an "on" answer; null for a plain on or off. */
  variant: string | null;
  count: number;
  /** The newest evaluation the count includes (its collection time: within the flush interval). */
  lastAt: EpochMs;
}

/** One result's evaluations summed over the hours asked for. */
export type FlagInsightTotal = Omit<FlagInsightCount, "hour">;

export interface FlagInsightRepository {
  /**
   * Adds the counts: for each (flagKey, hour, enabled, variant) the stored count MUST grow by
   * `count` (starting from 0 when there is no row yet) and `lastAt` become the later of the two,
   * atomically. Several processes add at once: counts sum, none is lost or counted twice, and
   * the same key may appear more than once in one call. A call adds all its counts or none.
   */
  add(counts: readonly FlagInsightCount[]): Promise<void>;

  /** One flag's counts for the hours starting in [from, to), ordered by hour, then result. */
  hourly(flagKey: string, from: EpochMs, to: EpochMs): Promise<FlagInsightCount[]>;

  /**
   * For each of these flags, its counts per result summed over the hours starting at or after
   * `since`, with the newest `lastAt`; results with no count there are left out.
   */
  totals(flagKeys: readonly string[], since: EpochMs): Promise<FlagInsightTotal[]>;
}
