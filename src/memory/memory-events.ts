import { FlagpostError } from "../errors.js";
import type {
  EventFilter,
  EventKey,
  EventRecord,
  EventRepository,
  IdempotencyCompletion,
  NewEvent,
} from "../storage/index.js";
import type { MemoryIdempotencyRepository } from "./memory-idempotency.js";
import { MemoryTable } from "./memory-table.js";

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

/**
 * Events in a table newest first (timestamp, then id, descending), sorted once after a run of
 * appends. Each method runs without an await between its checks and its changes, so a batch is
 * all-or-nothing and a query never sees half of one. Queries scan: fine for tests and small apps,
 * not for millions.
 */
export class MemoryEventRepository implements EventRepository {
  readonly #rows = new MemoryTable<Row>((row) => row.id, { by: (row) => [row.ts, row.id], descending: true });
  #lastReceivedAt: string | undefined;
  #lastReceivedMs = 0;
  readonly #idempotency: MemoryIdempotencyRepository;

  constructor(idempotency: MemoryIdempotencyRepository) {
    this.#idempotency = idempotency;
  }

  async appendEvents(events: readonly NewEvent[], completion?: IdempotencyCompletion): Promise<void> {
    const rows = new Map<string, Row>();
    for (const e of events) {
      if (this.#rows.has(e.id) || rows.has(e.id))
        throw new FlagpostError("conflict", `An event with id "${e.id}" already exists`);
      // The calls of one millisecond share one receipt time: checked once.
      if (e.receivedAt !== this.#lastReceivedAt) {
        this.#lastReceivedMs = epochMs(e.receivedAt, "receivedAt");
        this.#lastReceivedAt = e.receivedAt;
      }
      JSON.parse(e.propertiesJson); // a malformed document fails here, before anything is stored
      const ts = e.timestamp === e.receivedAt ? this.#lastReceivedMs : epochMs(e.timestamp, "timestamp");
      const { id, event, userId, timestamp, receivedAt, propertiesJson } = e;
      rows.set(id, { id, event, userId, ts, timestamp, receivedAt, propertiesJson });
    }
    // Rows built here, held nowhere else: stored as they are, without a copy.
    for (const [id, row] of rows) this.#rows.set(id, row);
    if (completion) this.#idempotency.completeNow(completion);
  }

  async queryEvents(filter: EventFilter, after: EventKey | undefined, limit: number): Promise<EventRecord[]> {
    const from = filter.from === undefined ? undefined : epochMs(filter.from, "from");
    const to = filter.to === undefined ? undefined : epochMs(filter.to, "to");
    const afterKey = after && [epochMs(after.timestamp, "after.timestamp"), after.id];
    const out: EventRecord[] = [];
    for (const row of this.#rows.scan(afterKey)) {
      if (out.length >= limit || (from !== undefined && row.ts < from)) break; // newest first: the rest is older still
      if (to !== undefined && row.ts >= to) continue;
      if (filter.userId !== undefined && row.userId !== filter.userId) continue;
      if (filter.event !== undefined && row.event !== filter.event) continue;
      const { id, event, userId, timestamp, receivedAt } = row;
      const properties = JSON.parse(row.propertiesJson) as Record<string, unknown>;
      out.push({ id, event, userId, timestamp, receivedAt, properties });
    }
    return out;
  }

  /** Every stored event as (event, userId, epoch ms, properties JSON), in no particular order: for the experiment sums. */
  scan(): Iterable<{ event: string; userId: string; ts: number; propertiesJson: string }> {
    return this.#rows.values();
  }

  async purgeEventsBefore(before: string): Promise<number> {
    const cutoff = epochMs(before, "before");
    return this.#rows.deleteWhere((row) => row.ts < cutoff);
  }

  async deleteEventsByUser(userId: string): Promise<number> {
    return this.#rows.deleteWhere((row) => row.userId === userId);
  }
}
