import { FlagpostError } from "../errors.js";
import type { FlagRecord, FlagRepository, FlagRowStore, StoredPrerequisiteGraph } from "../ports/storage/index.js";
import { copy, MemoryTable, StagedTable } from "./memory-table.js";

/** Flags in memory, by key: read here, written only by a committing transaction (memory-transaction.ts). */
export class MemoryFlagRepository implements FlagRepository {
  readonly rows = new MemoryTable<FlagRecord>((flag) => flag.key, { by: (flag) => [flag.key] });
  #revision = 0;

  async get(key: string): Promise<FlagRecord | undefined> {
    return this.rows.read(key);
  }

  async list({ after, limit }: { after?: string; limit: number }): Promise<FlagRecord[]> {
    return this.rows.pageAfter(after === undefined ? undefined : [after], limit);
  }

  async revision(): Promise<number> {
    return this.#revision;
  }

  /** Applies a transaction's flag writes; any grows the revision once. */
  commit(rows: MemoryFlagRows): void {
    if (rows.commit() > 0) this.#revision += 1;
  }
}

/**
 * Flag rows inside one memory transaction, kept aside until it commits. Transactions run one at
 * a time, so `lock` needs no lock.
 */
export class MemoryFlagRows extends StagedTable<FlagRecord> implements FlagRowStore {
  async lock(key: string): Promise<FlagRecord | undefined> {
    const flag = this.get(key);
    return flag && copy(flag);
  }

  async insert(flag: FlagRecord): Promise<void> {
    if (this.get(flag.key)) throw new FlagpostError("conflict", `A flag with key "${flag.key}" already exists`);
    this.set(flag.key, flag);
  }

  async replace(flag: FlagRecord): Promise<void> {
    this.set(flag.key, flag);
  }

  async delete(key: string): Promise<void> {
    this.set(key, null);
  }

  async prerequisiteGraph(): Promise<StoredPrerequisiteGraph> {
    const graph = new Map<string, string[]>();
    for (const { key, prerequisites } of this.rows())
      if (prerequisites.length > 0)
        graph.set(
          key,
          prerequisites.map((p) => p.flagKey),
        );
    return graph;
  }

  async existing(keys: readonly string[]): Promise<ReadonlySet<string>> {
    return new Set(keys.filter((key) => this.get(key)));
  }
}
