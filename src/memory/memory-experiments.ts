import type { ExperimentQuery, ExperimentRepository, ExperimentTotals, VariantTotals } from "../storage/index.js";
import { epochMs, type MemoryEventRepository } from "./memory-events.js";

interface Assignment {
  variant: string;
  mixed: boolean;
  exposedAt: number;
  converted: boolean;
  revenue: number;
}

/**
 * The experiment sums in JavaScript, over the memory event store: the same definition the SQL
 * adapters compute in the database (two passes here: assignments, then metric events).
 */
export class MemoryExperimentRepository implements ExperimentRepository {
  readonly #events: MemoryEventRepository;

  constructor(events: MemoryEventRepository) {
    this.#events = events;
  }

  async experimentTotals(query: ExperimentQuery): Promise<ExperimentTotals> {
    const from = query.from === undefined ? -Infinity : epochMs(query.from, "from");
    const to = query.to === undefined ? Infinity : epochMs(query.to, "to");
    const users = new Map<string, Assignment>();
    const metricEvents: { userId: string; ts: number; revenue: number }[] = [];
    for (const { event, userId, ts, propertiesJson } of this.#events.scan()) {
      if (ts < from || ts >= to) continue;
      const { experimentId, variant, revenue } = JSON.parse(propertiesJson) as Record<string, unknown>;
      if (event === query.metric) metricEvents.push({ userId, ts, revenue: typeof revenue === "number" ? revenue : 0 });
      if (experimentId !== query.experimentId || typeof variant !== "string") continue;
      const seen = users.get(userId) ?? { variant, mixed: false, exposedAt: ts, converted: false, revenue: 0 };
      users.set(userId, seen);
      seen.mixed ||= seen.variant !== variant;
      seen.exposedAt = Math.min(seen.exposedAt, ts);
    }
    for (const event of metricEvents) {
      const user = users.get(event.userId);
      if (user === undefined || event.ts < user.exposedAt) continue;
      user.converted = true;
      user.revenue += event.revenue;
    }
    const totals = new Map<string, VariantTotals>();
    const counted = [...users.values()].filter((user) => !user.mixed);
    for (const { variant, converted, revenue } of counted) {
      const sums = totals.get(variant) ?? { variant, users: 0, conversions: 0, revenue: 0, revenueSquares: 0 };
      totals.set(variant, sums);
      sums.users += 1;
      sums.conversions += converted ? 1 : 0;
      sums.revenue += revenue;
      sums.revenueSquares += revenue * revenue;
    }
    return { variants: [...totals.values()], excludedUsers: users.size - counted.length };
  }
}
