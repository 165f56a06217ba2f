import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// Flag history: who changed which flag, how, and when. Entries are appended by the core's flag
// writes (src/flags/store/flag-writes.ts) in the transaction of the change; this repository reads them.

/** Who made a flag change. */
export type FlagActor =
  /** A request through the HTTP API, made with this key. */
  | { type: "api_key"; id: string; name: string }
  /** A call on the library in this or another process (`fp.flags.update(...)`). */
  | { type: "in_process" }
  /** A scheduled change, applied when its time came; `id` is the schedule's id. */
  | { type: "schedule"; id: string };

export type FlagHistoryAction = "created" | "updated" | "deleted" | "scheduled_change_applied";

/** One changed value: `path` is dotted ("rules.0.percentage"); an absent value is `null`. */
export interface FlagFieldChange {
  path: string;
  before: unknown;
  after: unknown;
}

export interface FlagHistoryEntry {
  /**
   * UUIDv7 made once the write holds the flag's lock, so one flag's entries sort by id in the
   * order their writes committed.
   */
  id: string;
  flagKey: string;
  action: FlagHistoryAction;
  at: EpochMs;
  actor: FlagActor;
  changes: FlagFieldChange[];
}

/**
 * What a flag write records about itself. The core computes `changes` once, from the flag as it
 * was (read under the row's lock) and as it is written, inside the write's transaction, so the
 * history always describes what really changed, even when writes race.
 */
export interface FlagAudit {
  /** When the change was asked for (the service's clock). */
  at: EpochMs;
  actor: FlagActor;
  /** Update only: "scheduled_change_applied" for a schedule's write. Default "updated". */
  action?: Extract<FlagHistoryAction, "updated" | "scheduled_change_applied">;
  /**
   * Update only: the write applies this schedule (src/ports/storage/flag-schedules.ts). In the same
   * transaction it moves from pending, leased by `leaseOwner`, to applied (`finishedAt` = `at`,
   * lease dropped); when it is not pending under that lease (deleted, applied already, lease
   * lost), the write changes nothing and throws `FlagpostError("conflict")`. An unknown flag
   * still gives undefined, schedule untouched.
   */
  schedule?: { id: string; leaseOwner: string };
}

export interface FlagHistoryRepository {
  /**
   * Up to `limit` entries of the flag with this key, newest first (by id, descending), older
   * than the entry `before` (an id) when given. Entries outlive the flag: a deleted flag's
   * history, and that of an earlier flag with the same key, are listed too.
   */
  list(flagKey: string, options: { before?: string; limit: number }): Promise<FlagHistoryEntry[]>;
}
