import type { EpochMs, Storage, SuppressionRecord } from "../ports/storage/index.js";
import { suppressionDomainEvent } from "./webhook-events.js";

/** Addresses per row-store call, so a 1,000-address batch holds its locks through few statements. */
const CHUNK = 100;

/** What an add did: each entry as stored, in the order given, and the entries it actually added. */
export interface AddedSuppressions {
  stored: SuppressionRecord[];
  added: SuppressionRecord[];
}

/**
 * Writes to the suppression list, composed once in the core on a unit of work
 * (`storage.transaction`): the rows change and their `suppression.added` / `suppression.removed`
 * events are stored together, or neither. The storage only inserts, locks and deletes rows.
 */
export interface SuppressionWrites {
  /**
   * Adds each entry whose address is not on the list (an address given twice: the first entry),
   * and stores `suppression.added` (at `at`) for each one added. An address already there keeps
   * its entry; of callers adding one address at once, one adds it and the others find it.
   */
  add(entries: readonly SuppressionRecord[], at: EpochMs): Promise<AddedSuppressions>;
  /**
   * Removes the entries named by id or address and stores `suppression.removed` for each;
   * answers those removed (an identifier that names nothing is left out).
   */
  remove(idsOrEmails: readonly string[], at: EpochMs): Promise<SuppressionRecord[]>;
}

export function suppressionWrites(storage: Storage): SuppressionWrites {
  return {
    async add(entries, at) {
      if (entries.length === 0) return { stored: [], added: [] };
      const first = new Map<string, SuppressionRecord>();
      for (const entry of entries) if (!first.has(entry.email)) first.set(entry.email, entry);
      const stored = await storage.transaction(async (tx) => {
        const byEmail = new Map<string, SuppressionRecord>();
        for (const chunk of chunksOf([...first.values()])) {
          await tx.suppressions.insertAbsent(chunk);
          for (const row of await tx.suppressions.lock(chunk.map((e) => e.email))) byEmail.set(row.email, row);
        }
        const added = [...first.values()].filter((entry) => byEmail.get(entry.email)?.id === entry.id);
        await tx.domainEvents.record(
          added.map((entry) => suppressionDomainEvent("suppression.added", byEmail.get(entry.email)!, at)),
        );
        return byEmail;
      });
      return {
        stored: entries.map((entry) => ({ ...stored.get(entry.email)! })),
        added: [...first.values()].filter((entry) => stored.get(entry.email)?.id === entry.id),
      };
    },

    async remove(idsOrEmails, at) {
      const keys = [...new Set(idsOrEmails)];
      if (keys.length === 0) return [];
      return storage.transaction(async (tx) => {
        const found = new Map<string, SuppressionRecord>();
        for (const chunk of chunksOf(keys)) for (const row of await tx.suppressions.lock(chunk)) found.set(row.id, row);
        const removed = [...found.values()];
        for (const chunk of chunksOf(removed)) await tx.suppressions.delete(chunk.map((entry) => entry.id));
        await tx.domainEvents.record(removed.map((entry) => suppressionDomainEvent("suppression.removed", entry, at)));
        return removed;
      });
    },
  };
}

function chunksOf<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}
