import type { FlagInsightCount, FlagInsightRepository, FlagInsightTotal } from "../ports/storage/index.js";

/** One row's identity: flag, hour and result (a variant key cannot start with "_"). */
function rowKey(count: FlagInsightCount): string {
  return `${count.flagKey}\n${count.hour}\n${count.variant ?? (count.enabled ? "_on" : "_off")}`;
}

const later = (a: string, b: string) => (Date.parse(a) >= Date.parse(b) ? a : b);

/** The memory twin of flagpost_flag_insights: one process, so every add is atomic by itself. */
export class MemoryFlagInsightRepository implements FlagInsightRepository {
  readonly #rows = new Map<string, FlagInsightCount>();

  async add(counts: readonly FlagInsightCount[]): Promise<void> {
    for (const count of counts) {
      const key = rowKey(count);
      const row = this.#rows.get(key);
      if (row === undefined) this.#rows.set(key, { ...count });
      else this.#rows.set(key, { ...row, count: row.count + count.count, lastAt: later(row.lastAt, count.lastAt) });
    }
  }

  async hourly(flagKey: string, from: string, to: string): Promise<FlagInsightCount[]> {
    const start = Date.parse(from);
    const end = Date.parse(to);
    return [...this.#rows.values()]
      .filter((r) => r.flagKey === flagKey && Date.parse(r.hour) >= start && Date.parse(r.hour) < end)
      .sort((a, b) => Date.parse(a.hour) - Date.parse(b.hour) || rowKey(a).localeCompare(rowKey(b)))
      .map((r) => ({ ...r }));
  }

  async totals(flagKeys: readonly string[], since: string): Promise<FlagInsightTotal[]> {
    const wanted = new Set(flagKeys);
    const start = Date.parse(since);
    const totals = new Map<string, FlagInsightTotal>();
    for (const row of this.#rows.values()) {
      if (!wanted.has(row.flagKey) || Date.parse(row.hour) < start) continue;
      const key = rowKey({ ...row, hour: "" });
      const total = totals.get(key);
      if (total === undefined) {
        const { hour: _hour, ...rest } = row;
        totals.set(key, rest);
      } else {
        total.count += row.count;
        total.lastAt = later(total.lastAt, row.lastAt);
      }
    }
    return [...totals.values()];
  }
}
