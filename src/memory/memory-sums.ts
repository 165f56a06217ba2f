import type {
  EpochMs,
  ActivityRepository,
  EmailActivityBucket,
  EventCountBucket,
  ExperimentRepository,
  VariantTotals,
} from "../ports/storage/index.js";
import type { MemoryEmails } from "./memory-emails.js";
import type { MemoryEvents } from "./memory-events.js";
import { ascending } from "./memory-table.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";

// The sums the SQL adapters compute in the database (experiment totals, activity counts), by
// scanning the memory stores with the same definitions.

interface Assignment {
  variant: string;
  mixed: boolean;
  exposedAt: number;
  converted: boolean;
  revenue: number;
}

/** Experiment totals in two passes over the events in the window: assignments, then metric events. */
export function memoryExperiments(events: MemoryEvents): ExperimentRepository {
  return {
    async experimentTotals({ experimentId, metric, from, to }) {
      const start = from ?? -Infinity;
      const end = to ?? Infinity;
      const rows = [...events.scan()]
        .filter(({ ts }) => ts >= start && ts < end)
        .map((row) => ({ ...row, properties: JSON.parse(row.propertiesJson) as Record<string, unknown> }));
      const users = new Map<string, Assignment>();
      for (const { userId, ts, properties } of rows) {
        const { variant } = properties;
        if (properties.experimentId !== experimentId || typeof variant !== "string") continue;
        const seen = users.get(userId);
        if (seen === undefined)
          users.set(userId, { variant, mixed: false, exposedAt: ts, converted: false, revenue: 0 });
        else
          Object.assign(seen, {
            mixed: seen.mixed || seen.variant !== variant,
            exposedAt: Math.min(seen.exposedAt, ts),
          });
      }
      for (const { event, userId, ts, properties } of rows) {
        const user = users.get(userId);
        if (event !== metric || user === undefined || ts < user.exposedAt) continue;
        user.converted = true;
        if (typeof properties.revenue === "number") user.revenue += properties.revenue;
      }
      const totals = new Map<string, VariantTotals>();
      for (const { variant, mixed, converted, revenue } of users.values()) {
        if (mixed) continue;
        const sum = totals.get(variant) ?? { variant, users: 0, conversions: 0, revenue: 0, revenueSquares: 0 };
        totals.set(variant, sum);
        Object.assign(sum, {
          users: sum.users + 1,
          conversions: sum.conversions + (converted ? 1 : 0),
          revenue: sum.revenue + revenue,
          revenueSquares: sum.revenueSquares + revenue * revenue,
        });
      }
      return { variants: [...totals.values()], excludedUsers: [...users.values()].filter((u) => u.mixed).length };
    },
  };
}

/** Counts by bucket of `bucketMs` aligned to the epoch, of the times in [from, to), oldest bucket first. */
function bucketed<T extends { start: EpochMs }>(
  from: EpochMs,
  to: EpochMs,
  bucketMs: number,
  times: Iterable<[ms: number, field: keyof T]>,
  empty: () => Omit<T, "start">,
): T[] {
  const buckets = new Map<number, T>();
  for (const [ms, field] of times) {
    if (ms < from || ms >= to) continue;
    const key = ms - (ms % bucketMs);
    const bucket = buckets.get(key) ?? ({ start: key, ...empty() } as T);
    buckets.set(key, bucket);
    (bucket[field] as number) += 1;
  }
  return [...buckets.entries()].sort(([a], [b]) => a - b).map(([, bucket]) => bucket);
}

export function memoryActivity(
  emails: MemoryEmails,
  events: MemoryEvents,
  webhooks: MemoryWebhookState,
): ActivityRepository {
  return {
    countEmailActivity: async (from, to, bucketMs) =>
      bucketed<EmailActivityBucket>(
        from,
        to,
        bucketMs,
        (function* () {
          for (const { record, events } of emails.scan()) {
            if (record.sentAt !== undefined) yield [record.sentAt, "sent"];
            for (const { type, at } of events) if (type === "bounced" || type === "complained") yield [at, type];
          }
        })(),
        () => ({ sent: 0, bounced: 0, complained: 0 }),
      ),
    countEvents: async (from, to, bucketMs) =>
      bucketed<EventCountBucket>(
        from,
        to,
        bucketMs,
        [...events.scan()].map(({ ts }) => [ts, "count"]),
        () => ({ count: 0 }),
      ),
    listFailingWebhooks: async (limit) =>
      [...webhooks.webhooks.where((w) => w.failingSince !== undefined)]
        .map(({ id, endpoint, status, failingSince }) => ({
          id,
          endpoint,
          status,
          failingSince: failingSince!,
        }))
        .sort((a, b) => a.failingSince - b.failingSince || ascending(a.id, b.id))
        .slice(0, limit),
  };
}
