import { uuidv7 } from "../../ids.js";
import type {
  DomainEvent,
  FlagAudit,
  FlagChanges,
  FlagFieldChange,
  FlagHistoryAction,
  FlagRecord,
  Storage,
  StorageTransaction,
} from "../../ports/storage/index.js";
import { flagChanges } from "./history-diff.js";
import { checkDeletable, checkPrerequisites } from "./prerequisites.js";

/**
 * Flag writes, composed once in the core on a unit of work (`storage.transaction`): each write
 * reads the flag's row once, under its lock, checks the prerequisite graph, computes the history
 * diff, writes the row, appends the history entry and stores the domain events, in one
 * transaction: all of it commits or none. The storage only reads and writes rows.
 *
 * - `audit`: when given, a history entry is stored with `changes` = `flagChanges(before, after)`
 *   of the flag as it was (under the lock) and as written. A write that changes nothing (unknown
 *   key, or an update plan that answers null) stores no entry.
 * - `events`: domain events (src/ports/storage/domain-events.ts) stored with the write, none when it
 *   does not happen. An update's are built from the flag as stored, as it was, and their diff.
 * - Prerequisites: an insert, or an update that sets a non-empty list, is refused with
 *   `validation_error` as `checkPrerequisites` says, on the graph as it stands once no other
 *   flag write can commit before this one (the row write serializes flag writers, FlagRowStore),
 *   so two racing writes cannot together make a cycle, nor list a flag a racing delete removes.
 *   A delete is refused with `conflict` while another flag lists it (`checkDeletable`).
 */

/** What an update's events are built from: the flag as stored, as it was, and their difference. */
export type UpdateEvents = (
  stored: FlagRecord,
  before: FlagRecord,
  changes: FlagFieldChange[],
) => readonly DomainEvent[];

/**
 * The changes an update applies, or a function of the flag as read under the lock that returns
 * them (it may throw to refuse the write), or null for "nothing to change" (nothing is written
 * and the flag is returned as it is).
 */
export type UpdatePlan = FlagChanges | ((before: FlagRecord) => FlagChanges | null);

export interface FlagWrites {
  /** Stores a new flag; `conflict` when the key is taken (of racing inserts exactly one succeeds). */
  insert(flag: FlagRecord, audit?: FlagAudit, events?: readonly DomainEvent[]): Promise<void>;
  /**
   * Applies the plan's fields (absent ones stay) and `updatedAt` to the flag as read under its
   * lock, and returns it as stored; undefined when no flag has this key. Concurrent updates of
   * different fields all survive: each reads the row the previous one wrote.
   */
  update(key: string, plan: UpdatePlan, audit?: FlagAudit, events?: UpdateEvents): Promise<FlagRecord | undefined>;
  /** Removes the flag; true when it existed. Its history stays. */
  delete(key: string, audit?: FlagAudit, events?: (flag: FlagRecord) => readonly DomainEvent[]): Promise<boolean>;
}

export function flagWrites(storage: Storage): FlagWrites {
  return {
    insert: (flag, audit, events) =>
      storage.transaction(async (tx) => {
        await tx.flags.insert(flag);
        await checkGraph(tx, flag.key, flag.prerequisites);
        await finish(tx, flag.key, "created", audit && flagChanges(undefined, flag), audit, events);
      }),

    update: (key, plan, audit, events) =>
      storage.transaction(async (tx) => {
        const before = await tx.flags.lock(key);
        if (!before) return undefined;
        const changes = typeof plan === "function" ? plan(before) : plan;
        if (changes === null) return before;
        if (audit?.schedule) await tx.flagSchedules.complete(audit.schedule, audit.at);
        const after = applied(before, changes);
        await tx.flags.replace(after);
        if (changes.prerequisites !== undefined) await checkGraph(tx, key, changes.prerequisites);
        const diff = audit || events ? flagChanges(before, after) : [];
        await finish(tx, key, audit?.action ?? "updated", diff, audit, events?.(after, before, diff));
        return after;
      }),

    delete: (key, audit, events) =>
      storage.transaction(async (tx) => {
        const before = await tx.flags.lock(key);
        if (!before) return false;
        await tx.flags.delete(key);
        checkDeletable(key, await tx.flags.prerequisiteGraph());
        await finish(tx, key, "deleted", audit && flagChanges(before, undefined), audit, events?.(before));
        return true;
      }),
  };
}

/** The flag with the given fields replaced (an absent or undefined field keeps its value). */
function applied(before: FlagRecord, changes: FlagChanges): FlagRecord {
  const after: FlagRecord = { ...before, updatedAt: changes.updatedAt };
  if (changes.description !== undefined) after.description = changes.description;
  if (changes.enabled !== undefined) after.enabled = changes.enabled;
  if (changes.rules !== undefined) after.rules = changes.rules;
  if (changes.variants !== undefined) after.variants = changes.variants;
  if (changes.prerequisites !== undefined) after.prerequisites = changes.prerequisites;
  return after;
}

/** Refuses prerequisites that name no flag, the flag itself, or make a cycle or too deep a chain. */
async function checkGraph(tx: StorageTransaction, key: string, prerequisites: FlagRecord["prerequisites"]) {
  if (prerequisites.length === 0) return;
  const graph = await tx.flags.prerequisiteGraph();
  const existing = await tx.flags.existing([...new Set(prerequisites.map((p) => p.flagKey))]);
  checkPrerequisites(key, prerequisites, graph, (flagKey) => existing.has(flagKey));
}

/** The history entry (when audited) and the domain events of a write, in its transaction. */
async function finish(
  tx: StorageTransaction,
  flagKey: string,
  action: FlagHistoryAction,
  changes: FlagFieldChange[] | undefined,
  audit: FlagAudit | undefined,
  events: readonly DomainEvent[] | undefined,
): Promise<void> {
  if (audit && changes) {
    // Made now, while the write holds the flag's lock: one flag's entries sort in commit order.
    await tx.flagHistory.append({ id: uuidv7(), flagKey, action, at: audit.at, actor: audit.actor, changes });
  }
  if (events && events.length > 0) await tx.domainEvents.record(events);
}
