import { readFileSync } from "node:fs";
import type { ExperimentResults } from "../../src/experiments/index.js";
import type { NewEvent } from "../../src/ports/storage/events.js";

/** One user as generate.py writes it: [id, variant, exposure second, [[second, revenue | null]], other variant | null]. */
type CompactUser = [string, string, number, [number, number | null][], string | null];

export interface Dataset {
  name: string;
  experimentId: string;
  metric: string;
  flagVariants: { key: string; weight: number }[];
  users: CompactUser[];
  expected: Omit<ExperimentResults, "experimentId" | "metric" | "from" | "to">;
}

export const datasets = (
  JSON.parse(readFileSync(new URL("./datasets.json", import.meta.url), "utf8")) as { datasets: Dataset[] }
).datasets;

const T0 = Date.UTC(2026, 5, 1);

/** The data set as stored events: exposures (a second one for users seen in two variants), purchases, and noise. */
export function eventsOf(dataset: Dataset): NewEvent[] {
  const events: NewEvent[] = [];
  let n = 0;
  const add = (event: string, userId: string, second: number, properties: Record<string, unknown>) => {
    n += 1;
    const timestamp = T0 + second * 1000;
    events.push({
      id: `01920000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`,
      event,
      userId,
      timestamp,
      receivedAt: timestamp,
      propertiesJson: JSON.stringify(properties),
    });
  };
  for (const [userId, variant, exposed, purchases, alsoIn] of dataset.users) {
    add("$exposure", userId, exposed, {
      flagKey: dataset.experimentId,
      enabled: true,
      experimentId: dataset.experimentId,
      variant,
    });
    if (alsoIn !== null)
      add("$exposure", userId, exposed + 1, {
        flagKey: dataset.experimentId,
        enabled: true,
        experimentId: dataset.experimentId,
        variant: alsoIn,
      });
    for (const [second, revenue] of purchases)
      add(dataset.metric, userId, second, revenue === null ? {} : { revenue, currency: "EUR" });
    if (exposed % 7 === 0) add("page_view", userId, exposed + 2, { path: "/pricing" });
  }
  return events;
}
