import { FlagpostError } from "../errors.js";
import type { DomainEvent, FlagHistoryEntry, Storage, StorageTransaction } from "../ports/storage/index.js";
import { type MemoryDomainRepository, MemoryDomainRows } from "./memory-domains.js";
import type { MemoryFlagScheduleRepository } from "./memory-flag-schedules.js";
import { type MemoryFlagRepository, MemoryFlagRows } from "./memory-flags.js";
import { type MemorySuppressionRepository, MemorySuppressionRows } from "./memory-suppressions.js";
import { copy, type MemoryTable } from "./memory-table.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";

interface Stores {
  flags: MemoryFlagRepository;
  flagHistory: MemoryTable<FlagHistoryEntry>;
  flagSchedules: MemoryFlagScheduleRepository;
  suppressions: MemorySuppressionRepository;
  domains: MemoryDomainRepository;
  webhooks: MemoryWebhookState;
}

function lostSchedule(id: string): FlagpostError {
  return new FlagpostError("conflict", `Schedule "${id}" is no longer pending under this lease`);
}

/**
 * The memory unit of work. Transactions run one at a time (a promise queue); each keeps its
 * writes aside and applies them all in one synchronous step when `fn` resolves, so a reader never
 * sees half a write, and one that throws leaves nothing behind. A transaction that starts another
 * inside itself would wait for itself: `fn` uses `tx` only, as the port says.
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
  const rows = new MemoryFlagRows(stores.flags.rows);
  const suppressions = new MemorySuppressionRows(stores.suppressions.rows);
  const domains = new MemoryDomainRows(stores.domains.rows);
  const history: FlagHistoryEntry[] = [];
  const events: DomainEvent[] = [];
  const completions: { id: string; leaseOwner: string; at: string }[] = [];
  const result = await fn({
    flags: rows,
    suppressions,
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
  stores.flags.commit(rows);
  suppressions.commit();
  domains.commit(true);
  for (const entry of history) stores.flagHistory.set(entry.id, copy(entry));
  stores.webhooks.recordDomainEvents(events);
  return result;
}
