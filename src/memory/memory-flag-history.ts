import type { FlagHistoryEntry, FlagHistoryRepository } from "../ports/storage/index.js";

/** The memory twin of the history table: appended to when a flag write's transaction commits. */
export class MemoryFlagHistoryRepository implements FlagHistoryRepository {
  readonly #entries = new Map<string, FlagHistoryEntry[]>();

  /** Called by the memory transaction as it commits the write the entry records. */
  append(entry: FlagHistoryEntry): void {
    const list = this.#entries.get(entry.flagKey) ?? [];
    list.push(structuredClone(entry));
    this.#entries.set(entry.flagKey, list);
  }

  async list(flagKey: string, { before, limit }: { before?: string; limit: number }): Promise<FlagHistoryEntry[]> {
    const all = this.#entries.get(flagKey) ?? [];
    return all
      .filter((e) => before === undefined || e.id < before)
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, limit)
      .map((e) => structuredClone(e));
  }
}
