import { FlagpostError } from "../errors.js";
import type {
  EventFilter,
  EventKey,
  EventRecord,
  EventRepository,
  IdempotencyCompletion,
  NewEvent,
} from "../ports/storage/index.js";
import type { MemoryIdempotency } from "./memory-idempotency.js";

interface Row {
  id: string;
  event: string;
  userId: string;
  ts: number;
  timestamp: string;
  receivedAt: string;
  propertiesJson: string;
}

/** Epoch ms of an ISO-8601 UTC time as `Date#toISOString()` writes it; refuses any other form, as SQL adapters do. */
export function epochMs(iso: string, field: string): number {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms) || new Date(ms).toISOString() !== iso) {
    const message = `must be an ISO-8601 UTC time as Date#toISOString() writes it, got ${JSON.stringify(iso)}`;
    throw new FlagpostError("validation_error", `"${field}" ${message}`, { details: [{ path: field, message }] });
  }
  return ms;
}

/** Newest first: timestamp descending, then id descending. */
function newestFirst(a: Row, b: Row): number {
  if (a.ts !== b.ts) return b.ts - a.ts;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * Events in an array, sorted lazily (on the first query after an append). Each method runs without
 * an await between its checks and its changes, so a batch is all-or-nothing and a query never sees
 * half of one. Queries scan the whole array: fine for tests and small apps, not for millions.
 */
export class MemoryEventRepository implements EventRepository {
  #rows: Row[] = [];
  readonly #ids = new Set<string>();
  #sorted = true;
  #lastReceivedAt: string | undefined;
  #lastReceivedMs = 0;
  readonly #idempotency: MemoryIdempotency;

  constructor(idempotency: MemoryIdempotency) {
    this.#idempotency = idempotency;
  }

  async appendEvents(events: readonly NewEvent[], completion?: IdempotencyCompletion): Promise<void> {
    const rows: Row[] = [];
    const seen = new Set<string>();
    for (const e of events) {
      if (this.#ids.has(e.id) || seen.has(e.id))
        throw new FlagpostError("conflict", `An event with id "${e.id}" already exists`);
      seen.add(e.id);
      // The calls of one millisecond share one receipt time: checked once.
      if (e.receivedAt !== this.#lastReceivedAt) {
        this.#lastReceivedMs = epochMs(e.receivedAt, "receivedAt");
        this.#lastReceivedAt = e.receivedAt;
      }
      JSON.parse(e.propertiesJson); // a malformed document fails here, before anything is stored
      rows.push({
        id: e.id,
        event: e.event,
        userId: e.userId,
        ts: e.timestamp === e.receivedAt ? this.#lastReceivedMs : epochMs(e.timestamp, "timestamp"),
        timestamp: e.timestamp,
        receivedAt: e.receivedAt,
        propertiesJson: e.propertiesJson,
      });
    }
    for (const row of rows) {
      this.#rows.push(row);
      this.#ids.add(row.id);
    }
    if (rows.length > 0) this.#sorted = false;
    if (completion) this.#idempotency.completeNow(completion);
  }

  async queryEvents(filter: EventFilter, after: EventKey | undefined, limit: number): Promise<EventRecord[]> {
    const from = filter.from === undefined ? undefined : epochMs(filter.from, "from");
    const to = filter.to === undefined ? undefined : epochMs(filter.to, "to");
    const afterTs = after === undefined ? undefined : epochMs(after.timestamp, "after.timestamp");
    if (!this.#sorted) {
      this.#rows.sort(newestFirst);
      this.#sorted = true;
    }
    const out: EventRecord[] = [];
    for (const row of this.#rows) {
      if (out.length >= limit) break;
      if (afterTs !== undefined && (row.ts > afterTs || (row.ts === afterTs && row.id >= after!.id))) continue;
      if (to !== undefined && row.ts >= to) continue;
      if (from !== undefined && row.ts < from) break; // sorted: everything after is older still
      if (filter.userId !== undefined && row.userId !== filter.userId) continue;
      if (filter.event !== undefined && row.event !== filter.event) continue;
      out.push({
        id: row.id,
        event: row.event,
        userId: row.userId,
        timestamp: row.timestamp,
        receivedAt: row.receivedAt,
        properties: JSON.parse(row.propertiesJson) as Record<string, unknown>,
      });
    }
    return out;
  }

  /** Every stored event as (event, userId, epoch ms, properties JSON), in no particular order: for the experiment sums. */
  *scan(): Iterable<{ event: string; userId: string; ts: number; propertiesJson: string }> {
    yield* this.#rows;
  }

  async purgeEventsBefore(before: string): Promise<number> {
    const cutoff = epochMs(before, "before");
    return this.#removeWhere((row) => row.ts < cutoff);
  }

  async deleteEventsByUser(userId: string): Promise<number> {
    return this.#removeWhere((row) => row.userId === userId);
  }

  #removeWhere(test: (row: Row) => boolean): number {
    const kept: Row[] = [];
    for (const row of this.#rows) {
      if (test(row)) this.#ids.delete(row.id);
      else kept.push(row);
    }
    const removed = this.#rows.length - kept.length;
    this.#rows = kept;
    return removed;
  }
}
