import { FlagpostError } from "../errors.js";
import type { EventRecord, EventRepository } from "../ports/storage/index.js";
import { checkedEpochMs } from "../time.js";
import type { MemoryIdempotency } from "./memory-idempotency.js";

interface Row {
  id: string;
  event: string;
  userId: string;
  /** The event's timestamp, epoch ms (named as in the SQL tables and `scan()`). */
  ts: number;
  receivedAt: number;
  propertiesJson: string;
}

/** Newest first: timestamp descending, then id descending. */
function newestFirst(a: Row, b: Row): number {
  if (a.ts !== b.ts) return b.ts - a.ts;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The events in memory, and every stored one as (event, userId, epoch ms, properties JSON) for the sums, in no particular order. */
export type MemoryEvents = EventRepository & {
  scan(): Iterable<{ event: string; userId: string; ts: number; propertiesJson: string }>;
};

/**
 * Events in an array, sorted lazily (on the first query after an append). Each method runs without
 * an await between its checks and its changes, so a batch is all-or-nothing and a query never sees
 * half of one. Queries scan the whole array: fine for tests and small apps, not for millions.
 */
export function memoryEvents(idempotency: MemoryIdempotency): MemoryEvents {
  let rows: Row[] = [];
  const ids = new Set<string>();
  let sorted = true;
  const removeWhere = (test: (row: Row) => boolean) => {
    const kept: Row[] = [];
    for (const row of rows) {
      if (test(row)) ids.delete(row.id);
      else kept.push(row);
    }
    const removed = rows.length - kept.length;
    rows = kept;
    return removed;
  };
  return {
    async appendEvents(events, completion) {
      const added: Row[] = [];
      const seen = new Set<string>();
      for (const e of events) {
        if (ids.has(e.id) || seen.has(e.id))
          throw new FlagpostError("conflict", `An event with id "${e.id}" already exists`);
        seen.add(e.id);
        checkedEpochMs(e.receivedAt, "receivedAt");
        JSON.parse(e.propertiesJson); // a malformed document fails here, before anything is stored
        const { id, event, userId, receivedAt, propertiesJson } = e;
        added.push({ id, event, userId, ts: checkedEpochMs(e.timestamp, "timestamp"), receivedAt, propertiesJson });
      }
      for (const row of added) {
        rows.push(row);
        ids.add(row.id);
      }
      if (added.length > 0) sorted = false;
      if (completion) idempotency.completeNow(completion);
    },
    async queryEvents(filter, after, limit) {
      const from = filter.from === undefined ? undefined : checkedEpochMs(filter.from, "from");
      const to = filter.to === undefined ? undefined : checkedEpochMs(filter.to, "to");
      const afterTs = after === undefined ? undefined : checkedEpochMs(after.timestamp, "after.timestamp");
      if (!sorted) {
        rows.sort(newestFirst);
        sorted = true;
      }
      const out: EventRecord[] = [];
      for (const { ts, propertiesJson, ...row } of rows) {
        if (out.length >= limit) break;
        if (afterTs !== undefined && (ts > afterTs || (ts === afterTs && row.id >= after!.id))) continue;
        if (to !== undefined && ts >= to) continue;
        if (from !== undefined && ts < from) break; // sorted: everything after is older still
        if (filter.userId !== undefined && row.userId !== filter.userId) continue;
        if (filter.event !== undefined && row.event !== filter.event) continue;
        out.push({ ...row, timestamp: ts, properties: JSON.parse(propertiesJson) as Record<string, unknown> });
      }
      return out;
    },
    scan: () => rows,
    purgeEventsBefore: async (before) => {
      const cutoff = checkedEpochMs(before, "before");
      return removeWhere((row) => row.ts < cutoff);
    },
    deleteEventsByUser: async (userId) => removeWhere((row) => row.userId === userId),
  };
}
