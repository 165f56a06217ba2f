import type { Flag } from "../flags/schema.js";
import type { DomainEvent, EventsFor } from "./domain-events.js";
import type { FlagAudit } from "./flag-history.js";

// ---------------------------------------------------------------------------------------------
// Flags

export type FlagRecord = Flag;

export interface FlagChanges {
  description?: string;
  enabled?: boolean;
  rules?: Flag["rules"];
  variants?: Flag["variants"];
  prerequisites?: Flag["prerequisites"];
  updatedAt: string;
}

export interface FlagRepository {
  /**
   * Stores a new flag. MUST throw `FlagpostError("conflict")` when a flag with the same key
   * exists; when several inserts of one key race, exactly one succeeds.
   *
   * Every write takes an optional `audit`. When given, the write MUST store a history entry
   * (see FlagHistoryRepository) in the same transaction, with `changes` =
   * `flagChanges(before, after)` of the flag as it was and is inside that transaction: both or
   * neither are stored. A write that changes nothing (unknown key) stores no entry.
   *
   * Every write also takes optional domain `events` (see domain-events.ts; for update a function
   * of the flag as stored afterwards and as it was before, read in the same transaction as the
   * history's `before`; for delete a function of the flag as it was), stored in the same transaction.
   *
   * Prerequisites: an insert, or an update that sets a non-empty list, MUST refuse with
   * `FlagpostError("validation_error")` what `checkPrerequisites` (src/flags/prerequisites.ts)
   * refuses, run inside the write's transaction on the graph as it stands once no other flag
   * write can commit before this one (so two racing writes cannot together make a cycle, nor a
   * write list a flag a racing delete removes); nothing is stored then.
   */
  insert(flag: FlagRecord, audit?: FlagAudit, events?: readonly DomainEvent[]): Promise<void>;

  /** The flag with this key, or undefined. Keys are case-sensitive: "A" and "a" are two flags. */
  get(key: string): Promise<FlagRecord | undefined>;

  /**
   * Up to `limit` flags whose key is strictly greater than `after` (all when omitted), ordered by
   * key in code-point (byte) order — not by a locale collation — so pages are stable everywhere.
   */
  list(options: { after?: string; limit: number }): Promise<FlagRecord[]>;

  /**
   * Applies the given fields (absent fields stay as they are) and `updatedAt`, atomically, and
   * returns the flag as stored afterwards; undefined when no flag has this key. Two concurrent
   * updates of different fields MUST both survive (no read-modify-write of the whole row).
   */
  update(
    key: string,
    changes: FlagChanges,
    audit?: FlagAudit,
    events?: (stored: FlagRecord, before: FlagRecord) => readonly DomainEvent[],
  ): Promise<FlagRecord | undefined>;

  /**
   * Removes the flag; true when it existed. Its history stays. MUST refuse with
   * `FlagpostError("conflict")` (`checkDeletable`, src/flags/prerequisites.ts), inside the
   * transaction, while another flag lists it as a prerequisite; nothing is deleted then.
   */
  delete(key: string, audit?: FlagAudit, events?: EventsFor<FlagRecord>): Promise<boolean>;

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
