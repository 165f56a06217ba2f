import type { FlagHistoryEntry, FlagHistoryRepository } from "../ports/storage/index.js";
import { copy, MemoryTable } from "./memory-table.js";

/** The memory twin of the history table: appended to when a flag write's transaction commits. */
export class MemoryFlagHistoryRepository implements FlagHistoryRepository {
  readonly #entries = new MemoryTable<FlagHistoryEntry>((e) => e.id, { by: (e) => [e.id], descending: true });

  /** Called by the memory transaction as it commits the write the entry records. */
  append(entry: FlagHistoryEntry): void {
    this.#entries.set(entry.id, copy(entry));
  }

  async list(flagKey: string, { before, limit }: { before?: string; limit: number }): Promise<FlagHistoryEntry[]> {
    return this.#entries.pageAfter(before === undefined ? undefined : [before], limit, (e) => e.flagKey === flagKey);
  }
}
