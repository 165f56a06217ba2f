import type { FlagInsightCount, FlagInsightRepository, FlagInsightTotal } from "../ports/storage/index.js";
import { MemoryTable } from "./memory-table.js";

/** A count's result as the SQL table's `result` column has it (a variant key cannot start with "_"). */
const resultOf = (count: Omit<FlagInsightCount, "hour">) => count.variant ?? (count.enabled ? "_on" : "_off");
const rowKey = (count: FlagInsightCount) => `${count.flagKey}\n${count.hour}\n${resultOf(count)}`;

/** The memory twin of flagpost_flag_insights: one process, so every add is atomic by itself. */
export function memoryFlagInsights(): FlagInsightRepository {
  const rows = new MemoryTable<FlagInsightCount>(rowKey, { by: (r) => [r.hour, resultOf(r)] });
  return {
    async add(counts) {
      for (const count of counts) {
        const row = rows.get(rowKey(count));
        if (row === undefined) rows.set(rowKey(count), { ...count });
        else Object.assign(row, { count: row.count + count.count, lastAt: Math.max(row.lastAt, count.lastAt) });
      }
    },
    async hourly(flagKey, from, to) {
      return rows.pageAfter(undefined, Infinity, (r) => r.flagKey === flagKey && r.hour >= from && r.hour < to);
    },
    async totals(flagKeys, since) {
      const wanted = new Set(flagKeys);
      const totals = new Map<string, FlagInsightTotal>();
      for (const { hour, ...row } of rows.values()) {
        if (!wanted.has(row.flagKey) || hour < since) continue;
        const key = `${row.flagKey}\n${resultOf(row)}`;
        const total = totals.get(key);
        if (total === undefined) totals.set(key, row);
        else Object.assign(total, { count: total.count + row.count, lastAt: Math.max(total.lastAt, row.lastAt) });
      }
      return [...totals.values()];
    },
  };
}
