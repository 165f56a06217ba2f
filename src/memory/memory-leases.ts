import type { EpochMs } from "../ports/storage/index.js";
import { ascending, type MemoryTable } from "./memory-table.js";

/** A jobs-shaped row (emails, webhook deliveries): due from `nextAttemptAt`, leased to one worker at a time. */
interface Leased {
  id: string;
  nextAttemptAt: EpochMs;
  attempts: number;
  leaseOwner?: string;
  leaseUntil?: EpochMs;
}

/**
 * The memory twin of adapters/kysely/job-claims.ts over one table (by id). `open`: the rows a
 * claim, a renewal or a release is about (queued emails, deliveries still to be made). Each
 * function runs without awaiting, so it is atomic in this process.
 */
export class MemoryLeases<T extends Leased> {
  constructor(
    readonly table: MemoryTable<T>,
    readonly open: (row: T) => boolean,
  ) {}

  /**
   * Leases to `owner` until `now + leaseMs` up to `limit` open rows that are due and unleased (or
   * whose lease ended), longest-due first (then by id), that `take` accepts when asked in that
   * order; adds 1 to their attempts and returns them (the stored rows, not copies).
   */
  claim(now: EpochMs, limit: number, leaseMs: number, owner: string, take: (row: T) => boolean = () => true): T[] {
    const due = [...this.table.values()]
      .filter((r) => this.open(r) && r.nextAttemptAt <= now && (r.leaseUntil === undefined || r.leaseUntil <= now))
      .sort((a, b) => ascending(a.nextAttemptAt, b.nextAttemptAt) || ascending(a.id, b.id));
    const claimed: T[] = [];
    for (const row of due) if (claimed.length < limit && take(row)) claimed.push(row);
    const leaseUntil = now + leaseMs;
    for (const row of claimed) Object.assign(row, { leaseOwner: owner, leaseUntil, attempts: row.attempts + 1 });
    return claimed;
  }

  /** Extends the leases `owner` holds among `ids` on open rows; their ids. */
  renew(ids: readonly string[], owner: string, leaseUntil: EpochMs): string[] {
    const renewed = [...new Set(ids)].filter((id) => {
      const row = this.table.get(id);
      return row !== undefined && this.open(row) && row.leaseOwner === owner;
    });
    for (const id of renewed) this.table.get(id)!.leaseUntil = leaseUntil;
    return renewed;
  }

  /** The distinct owners of leases on open rows that have not ended at `now`. */
  owners(now: EpochMs): string[] {
    const owners = new Set<string>();
    for (const r of this.table.values())
      if (this.open(r) && r.leaseOwner !== undefined && r.leaseUntil !== undefined && r.leaseUntil > now)
        owners.add(r.leaseOwner);
    return [...owners];
  }

  /** Frees the leases `owners` hold on open rows; how many. */
  release(owners: readonly string[]): number {
    const dead = new Set(owners);
    let released = 0;
    for (const row of this.table.where(this.open))
      if (row.leaseOwner !== undefined && dead.has(row.leaseOwner)) {
        unlease(row);
        released += 1;
      }
    return released;
  }
}

/** Drops a row's lease. */
export function unlease(row: Leased): void {
  delete row.leaseOwner;
  delete row.leaseUntil;
}
