import type { Flag } from "../../flags/schema.js";
import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// Flags

export type FlagRecord = Flag;

export interface FlagChanges {
  description?: string;
  enabled?: boolean;
  rules?: Flag["rules"];
  variants?: Flag["variants"];
  prerequisites?: Flag["prerequisites"];
  updatedAt: EpochMs;
}

/**
 * The read side of flags. Writes go through a unit of work (`storage.transaction`, the
 * `FlagRowStore` of unit-of-work.ts), composed by the core in src/flags/store/flag-writes.ts.
 */
export interface FlagRepository {
  /** The flag with this key, or undefined. Keys are case-sensitive: "A" and "a" are two flags. */
  get(key: string): Promise<FlagRecord | undefined>;

  /**
   * Up to `limit` flags whose key is strictly greater than `after` (all when omitted), ordered by
   * key in code-point (byte) order — not by a locale collation — so pages are stable everywhere.
   */
  list(options: { after?: string; limit: number }): Promise<FlagRecord[]>;

  /**
   * A number that changes (grows) whenever any flag is inserted, updated or deleted, in the same
   * transaction as that write. Cheap to read: other processes poll it to know their snapshot is stale.
   */
  revision(): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Flag change notifications (optional capability)

/** Told about flag writes committed by any process. Calls MUST NOT throw into the adapter. */
export interface FlagWatchListener {
  /** A flag write was committed (by any process, this one included). */
  changed(): void;
  /** The watch is live, the first time or again after a loss: changes made meanwhile were not reported. */
  listening(): void;
  /** The watch was lost; the adapter reconnects by itself and calls `listening` when back. */
  lost(error: unknown): void;
}

export interface FlagWatcher {
  /** Stops watching and releases the connection the watch held. */
  close(): Promise<void>;
}
