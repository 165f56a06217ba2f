import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// Experiments: the per-variant sums results are computed from (docs/experiments.md)

/** Which experiment, which metric, and which window of events. */
export interface ExperimentQuery {
  /** Matched exactly (case-sensitive) against `properties.experimentId`. */
  experimentId: string;
  /** The conversion event's name, matched exactly. */
  metric: string;
  /** Inclusive lower bound on every event's `timestamp` (assignment and metric events alike). */
  from?: EpochMs;
  /** Exclusive upper bound on every event's `timestamp`. */
  to?: EpochMs;
}

/** One variant's users and the sums of their two per-user measures. */
export interface VariantTotals {
  variant: string;
  /** Users assigned to this variant (and to no other). */
  users: number;
  /** Users with a metric event at or after their exposure: Σ converted. */
  conversions: number;
  /** Σ over users of the user's revenue (the sum of `properties.revenue` of those metric events). */
  revenue: number;
  /** Σ over users of the square of the user's revenue. */
  revenueSquares: number;
}

export interface ExperimentTotals {
  /** One entry per variant with at least one user, in any order. */
  variants: VariantTotals[];
  /** Users whose assignment events name more than one variant. */
  excludedUsers: number;
}

export interface ExperimentRepository {
  /**
   * Aggregates the experiment where the data lives (one or two grouped queries), never by
   * streaming every event to the caller. Within the window:
   * - an assignment event has `properties.experimentId` equal to `experimentId` and a string
   *   `properties.variant`; a user's variants are those of their assignment events, and their
   *   exposure is the earliest assignment event's `timestamp`;
   * - a user with one variant counts in it; a user with several counts only in `excludedUsers`;
   * - the user's metric events are their events named `metric` with `timestamp` ≥ exposure;
   *   converted = 1 when there is one; revenue = Σ `properties.revenue` of those that hold a number.
   * Strings compare exactly, byte for byte, on every engine ("u1" is neither "U1" nor "u1 ").
   */
  experimentTotals(query: ExperimentQuery): Promise<ExperimentTotals>;
}
