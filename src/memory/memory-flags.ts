import { FlagpostError } from "../errors.js";
import type { FlagRecord, FlagRepository, FlagRowStore, StoredPrerequisiteGraph } from "../ports/storage/index.js";

/** Flags in memory: read here, written only by a committing transaction (memory-transaction.ts). */
export class MemoryFlagRepository implements FlagRepository {
  /** The stored rows; handed out as copies only. */
  readonly rows = new Map<string, FlagRecord>();
  #revision = 0;

  async get(key: string): Promise<FlagRecord | undefined> {
    const flag = this.rows.get(key);
    return flag && structuredClone(flag);
  }

  async list({ after, limit }: { after?: string; limit: number }): Promise<FlagRecord[]> {
    const keys = [...this.rows.keys()].filter((k) => after === undefined || k > after).sort();
    return keys.slice(0, limit).map((k) => structuredClone(this.rows.get(k)!));
  }

  async revision(): Promise<number> {
    return this.#revision;
  }

  /** Applies a transaction's writes (key → row, or null when deleted) and grows the revision. */
  commit(written: ReadonlyMap<string, FlagRecord | null>): void {
    if (written.size === 0) return;
    for (const [key, flag] of written) {
      if (flag) this.rows.set(key, flag);
      else this.rows.delete(key);
    }
    this.#revision += 1;
  }
}

/**
 * Flag rows inside one memory transaction: its writes are kept aside (reads in it see them) and
 * reach the repository when it commits. Transactions run one at a time, so `lock` needs no lock.
 */
export class MemoryFlagRows implements FlagRowStore {
  readonly written = new Map<string, FlagRecord | null>();
  readonly #stored: MemoryFlagRepository;

  constructor(stored: MemoryFlagRepository) {
    this.#stored = stored;
  }

  async lock(key: string): Promise<FlagRecord | undefined> {
    const flag = this.#current(key);
    return flag && structuredClone(flag);
  }

  async insert(flag: FlagRecord): Promise<void> {
    if (this.#current(flag.key)) throw new FlagpostError("conflict", `A flag with key "${flag.key}" already exists`);
    this.written.set(flag.key, structuredClone(flag));
  }

  async replace(flag: FlagRecord): Promise<void> {
    this.written.set(flag.key, structuredClone(flag));
  }

  async delete(key: string): Promise<void> {
    this.written.set(key, null);
  }

  async prerequisiteGraph(): Promise<StoredPrerequisiteGraph> {
    const graph = new Map<string, string[]>();
    for (const key of new Set([...this.#stored.rows.keys(), ...this.written.keys()])) {
      const prerequisites = this.#current(key)?.prerequisites ?? [];
      if (prerequisites.length > 0)
        graph.set(
          key,
          prerequisites.map((p) => p.flagKey),
        );
    }
    return graph;
  }

  async existing(keys: readonly string[]): Promise<ReadonlySet<string>> {
    return new Set(keys.filter((key) => this.#current(key)));
  }

  #current(key: string): FlagRecord | undefined {
    return this.written.has(key) ? (this.written.get(key) ?? undefined) : this.#stored.rows.get(key);
  }
}
