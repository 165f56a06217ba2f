import { FlagpostError } from "../errors.js";
import type {
  DomainEvent,
  EpochMs,
  FlagHistoryEntry,
  FlagRecord,
  SendingDomainRecord,
  Storage,
  StorageTransaction,
  SuppressionRecord,
} from "../ports/storage/index.js";
import type { MemoryFlagSchedules } from "./memory-flag-schedules.js";
import { copy, type MemoryTable, StagedTable } from "./memory-table.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";

interface Stores {
  flags: MemoryTable<FlagRecord>;
  /** The flags revision: grown once by each transaction that writes a flag. */
  flagRevision: { value: number };
  flagHistory: MemoryTable<FlagHistoryEntry>;
  flagSchedules: MemoryFlagSchedules;
  suppressions: MemoryTable<SuppressionRecord>;
  domains: MemoryTable<SendingDomainRecord>;
  webhooks: MemoryWebhookState;
}

function lostSchedule(id: string): FlagpostError {
  return new FlagpostError("conflict", `Schedule "${id}" is no longer pending under this lease`);
}

/**
 * The memory unit of work. Transactions run one at a time (a promise queue), so a row store's
 * `lock` needs no lock; each keeps its writes aside (StagedTable) and applies them all in one
 * synchronous step when `fn` resolves, so a reader never sees half a write, and one that throws
 * leaves nothing behind. A transaction that starts another inside itself would wait for itself:
 * `fn` uses `tx` only, as the port says.
 */
export function memoryTransactions(stores: Stores): Storage["transaction"] {
  let queue: Promise<unknown> = Promise.resolve();
  return <T>(fn: (tx: StorageTransaction) => Promise<T>): Promise<T> => {
    const run = queue.then(() => runOne(stores, fn));
    queue = run.catch(() => undefined);
    return run;
  };
}

async function runOne<T>(stores: Stores, fn: (tx: StorageTransaction) => Promise<T>): Promise<T> {
  const flags = new StagedTable(stores.flags);
  const suppressions = new StagedTable(stores.suppressions);
  const domains = new StagedTable(stores.domains);
  const history: FlagHistoryEntry[] = [];
  const events: DomainEvent[] = [];
  const completions: { id: string; leaseOwner: string; at: EpochMs }[] = [];
  const result = await fn({
    flags: {
      lock: (key) => flags.lock(key),
      async insert(flag) {
        if (flags.get(flag.key)) throw new FlagpostError("conflict", `A flag with key "${flag.key}" already exists`);
        flags.set(flag.key, flag);
      },
      replace: (flag) => flags.replace(flag),
      delete: async (key) => flags.set(key, null),
      prerequisiteGraph: async () =>
        new Map(
          [...flags.rows()]
            .filter(({ prerequisites }) => prerequisites.length > 0)
            .map(({ key, prerequisites }) => [key, prerequisites.map((p) => p.flagKey)]),
        ),
      existing: async (keys) => new Set(keys.filter((key) => flags.get(key))),
    },
    suppressions: {
      async insertAbsent(entries) {
        for (const entry of entries) if (!suppressions.get(entry.email)) suppressions.set(entry.email, entry);
      },
      async lock(idsOrEmails) {
        const keys = new Set(idsOrEmails);
        return [...suppressions.rows()].filter((s) => keys.has(s.email) || keys.has(s.id)).map(copy);
      },
      async delete(ids) {
        for (const { id, email } of [...suppressions.rows()]) if (ids.includes(id)) suppressions.set(email, null);
      },
    },
    domains,
    flagHistory: { append: async (entry) => void history.push(entry) },
    domainEvents: { record: async (recorded) => void events.push(...recorded) },
    flagSchedules: {
      async complete({ id, leaseOwner }, at) {
        if (!stores.flagSchedules.held(id, leaseOwner)) throw lostSchedule(id);
        completions.push({ id, leaseOwner, at });
      },
    },
  });
  // The commit: checked again (a lease can expire and be claimed while fn awaits), then applied whole.
  for (const c of completions) if (!stores.flagSchedules.held(c.id, c.leaseOwner)) throw lostSchedule(c.id);
  for (const c of completions) stores.flagSchedules.complete(c.id, c.at);
  if (flags.commit() > 0) stores.flagRevision.value += 1;
  suppressions.commit();
  // A domain deleted outside the transaction meanwhile stays deleted, as after waiting for its row lock.
  domains.commit(true);
  for (const entry of history) stores.flagHistory.set(entry.id, copy(entry));
  stores.webhooks.recordDomainEvents(events);
  return result;
}
