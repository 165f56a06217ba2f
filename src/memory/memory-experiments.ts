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
    const metricEvents: { userId: string; ts: number; revenue: number | undefined }[] = [];
    for (const row of this.#events.scan()) {
      if (row.ts < from || row.ts >= to) continue;
      const properties = JSON.parse(row.propertiesJson) as Record<string, unknown>;
      if (row.event === query.metric) {
        const revenue = properties.revenue;
        metricEvents.push({
          userId: row.userId,
          ts: row.ts,
          revenue: typeof revenue === "number" ? revenue : undefined,
        });
      }
      if (properties.experimentId !== query.experimentId || typeof properties.variant !== "string") continue;
      const seen = users.get(row.userId);
      if (seen === undefined) {
        users.set(row.userId, {
          variant: properties.variant,
          mixed: false,
          exposedAt: row.ts,
          converted: false,
          revenue: 0,
        });
      } else {
        if (seen.variant !== properties.variant) seen.mixed = true;
        seen.exposedAt = Math.min(seen.exposedAt, row.ts);
      }
    }
    for (const event of metricEvents) {
      const user = users.get(event.userId);
      if (user === undefined || event.ts < user.exposedAt) continue;
      user.converted = true;
      if (event.revenue !== undefined) user.revenue += event.revenue;
    }
    const totals = new Map<string, VariantTotals>();
    let excludedUsers = 0;
    for (const user of users.values()) {
      if (user.mixed) {
        excludedUsers += 1;
        continue;
      }
      let variant = totals.get(user.variant);
      if (variant === undefined) {
        variant = { variant: user.variant, users: 0, conversions: 0, revenue: 0, revenueSquares: 0 };
        totals.set(user.variant, variant);
      }
      variant.users += 1;
      if (user.converted) variant.conversions += 1;
      variant.revenue += user.revenue;
      variant.revenueSquares += user.revenue * user.revenue;
    }
    return { variants: [...totals.values()], excludedUsers };
  }
}
