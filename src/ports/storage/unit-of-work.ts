import type { DomainEvent } from "./domain-events.js";
import type { SendingDomainRecord } from "./domains.js";
import type { FlagHistoryEntry } from "./flag-history.js";
import type { FlagRecord } from "./flags.js";
import type { SuppressionRecord } from "./suppressions.js";
import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// The unit of work: `storage.transaction(fn)` hands `fn` plain repositories bound to one
// transaction. The core composes its rules inside it (src/flags/store/flag-writes.ts: prerequisites,
// history diff, domain events; src/emails/suppression-writes.ts and src/domains/domain-writes.ts:
// which rows change and their events), each computed once; the backend only reads and writes rows.

/** Flag key → the keys of its prerequisites, for every stored flag that has some. */
export type StoredPrerequisiteGraph = ReadonlyMap<string, readonly string[]>;

/**
 * Flag rows inside a transaction. Every write (insert, replace, delete) MUST grow the flags
 * revision (FlagRepository.revision) in the same transaction, and that growth MUST serialize
 * flag writers: once a transaction has written a flag row, no other flag write commits until it
 * ends, so what it reads afterwards (prerequisiteGraph, existing) is the graph its commit lands on.
 */
export interface FlagRowStore {
  /**
   * The row with this key, or undefined, locked against every other flag writer until the
   * transaction ends (SELECT … FOR UPDATE; SQLite's writer lock), so a write built on it replaces
   * exactly what was read. Reads the row once.
   */
  lock(key: string): Promise<FlagRecord | undefined>;
  /** Stores a new row. MUST throw `FlagpostError("conflict")` when the key exists; of racing inserts exactly one succeeds. */
  insert(flag: FlagRecord): Promise<void>;
  /** Replaces the row of `flag.key`, which this transaction locked (`lock`) and found. */
  replace(flag: FlagRecord): Promise<void>;
  /** Removes the row of `key`, which this transaction locked and found. */
  delete(key: string): Promise<void>;
  /** Every stored flag's prerequisite keys (flags without any are left out); call after a write. */
  prerequisiteGraph(): Promise<StoredPrerequisiteGraph>;
  /** Which of these keys name stored flags; call after a write. */
  existing(keys: readonly string[]): Promise<ReadonlySet<string>>;
}

/**
 * Suppression list rows inside a transaction (SuppressionRepository reads them outside one). Each
 * call takes at most 100 entries or identifiers: the core splits larger batches.
 */
export interface SuppressionRowStore {
  /**
   * Stores each entry whose address is not stored yet and leaves the stored ones as they are.
   * Entries hold distinct, lower-cased addresses. Of transactions inserting one address at once
   * exactly one stores it and none fails: the others find its row with `lock` afterwards.
   */
  insertAbsent(entries: readonly SuppressionRecord[]): Promise<void>;
  /**
   * The stored rows whose id or address is one of these, in any order, locked against every
   * other writer of them until the transaction ends; rows another transaction committed while
   * this one waited are seen (a locking read, not the transaction's snapshot).
   */
  lock(idsOrEmails: readonly string[]): Promise<SuppressionRecord[]>;
  /** Removes the rows with these ids, which this transaction locked. */
  delete(ids: readonly string[]): Promise<void>;
}

/** Sending domain rows inside a transaction (DomainRepository reads, inserts and deletes them outside one). */
export interface DomainRowStore {
  /**
   * The domain with this id, or undefined, locked against every other writer of it until the
   * transaction ends (SELECT … FOR UPDATE; SQLite's writer lock): of two transactions that lock
   * it, the second reads what the first wrote.
   */
  lock(id: string): Promise<SendingDomainRecord | undefined>;
  /** Replaces the row of `domain.id`, which this transaction locked and found, with `domain`. */
  replace(domain: SendingDomainRecord): Promise<void>;
}

/** What one transaction may do. Each part commits or rolls back with the rest. */
export interface StorageTransaction {
  readonly flags: FlagRowStore;
  readonly suppressions: SuppressionRowStore;
  readonly domains: DomainRowStore;
  /** Appends a flag history entry (read back through `storage.flagHistory`). */
  readonly flagHistory: { append(entry: FlagHistoryEntry): Promise<void> };
  /**
   * Stores domain events as webhook deliveries (see domain-events.ts: one per enabled endpoint
   * subscribed to the type, none when nobody is); the delivery worker is told once they commit.
   */
  readonly domainEvents: { record(events: readonly DomainEvent[]): Promise<void> };
  readonly flagSchedules: {
    /**
     * Moves the schedule from pending, leased by `leaseOwner`, to applied (`finishedAt` = `at`,
     * lease dropped). MUST throw `FlagpostError("conflict")` when it is not pending under that
     * lease (deleted, applied already, lease lost). Call after locking the flag row it changes,
     * so every writer takes the flag row, then the schedule row.
     */
    complete(schedule: { id: string; leaseOwner: string }, at: EpochMs): Promise<void>;
  };
}
