import type {
  ActivityRepository,
  EmailActivityBucket,
  EventCountBucket,
  FailingWebhook,
} from "../ports/storage/index.js";
import type { MemoryEmailRepository } from "./memory-emails.js";
import { epochMs, type MemoryEventRepository } from "./memory-events.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";

/** The bucket start of `ms` for buckets of `size` ms aligned to the epoch. */
const bucketOf = (ms: number, size: number) => ms - (ms % size);
const oldestFirst = <T extends { start: string }>(buckets: Map<number, T>): T[] =>
  [...buckets.entries()].sort(([a], [b]) => a - b).map(([, bucket]) => bucket);

/** The activity counts by scanning the memory stores: the same definitions the SQL adapters count with indexes. */
export class MemoryActivityRepository implements ActivityRepository {
  readonly #emails: MemoryEmailRepository;
  readonly #events: MemoryEventRepository;
  readonly #webhooks: MemoryWebhookState;

  constructor(emails: MemoryEmailRepository, events: MemoryEventRepository, webhooks: MemoryWebhookState) {
    this.#emails = emails;
    this.#events = events;
    this.#webhooks = webhooks;
  }

  async countEmailActivity(from: string, to: string, bucketMs: number): Promise<EmailActivityBucket[]> {
    const [start, end] = [epochMs(from, "from"), epochMs(to, "to")];
    const buckets = new Map<number, EmailActivityBucket>();
    const add = (at: string, field: "sent" | "bounced" | "complained") => {
      const ms = Date.parse(at);
      if (ms < start || ms >= end) return;
      const key = bucketOf(ms, bucketMs);
      let bucket = buckets.get(key);
      if (!bucket)
        buckets.set(key, (bucket = { start: new Date(key).toISOString(), sent: 0, bounced: 0, complained: 0 }));
      bucket[field] += 1;
    };
    for (const { record, events } of this.#emails.scan()) {
      if (record.sentAt !== undefined) add(record.sentAt, "sent");
      for (const event of events)
        if (event.type === "bounced" || event.type === "complained") add(event.at, event.type);
    }
    return oldestFirst(buckets);
  }

  async countEvents(from: string, to: string, bucketMs: number): Promise<EventCountBucket[]> {
    const [start, end] = [epochMs(from, "from"), epochMs(to, "to")];
    const buckets = new Map<number, EventCountBucket>();
    for (const { ts } of this.#events.scan()) {
      if (ts < start || ts >= end) continue;
      const key = bucketOf(ts, bucketMs);
      const bucket = buckets.get(key);
      if (bucket) bucket.count += 1;
      else buckets.set(key, { start: new Date(key).toISOString(), count: 1 });
    }
    return oldestFirst(buckets);
  }

  async listFailingWebhooks(limit: number): Promise<FailingWebhook[]> {
    const failing: FailingWebhook[] = [];
    for (const w of this.#webhooks.webhooks.values())
      if (w.failingSince !== undefined)
        failing.push({ id: w.id, endpoint: w.endpoint, status: w.status, failingSince: w.failingSince });
    failing.sort((a, b) => a.failingSince.localeCompare(b.failingSince) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return failing.slice(0, limit);
  }
}
