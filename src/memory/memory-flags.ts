import { FlagpostError } from "../errors.js";
import type { FlagChanges, FlagRecord, FlagRepository } from "../storage/index.js";

export class MemoryFlagRepository implements FlagRepository {
  readonly #flags = new Map<string, FlagRecord>();
  #revision = 0;

  async insert(flag: FlagRecord): Promise<void> {
    if (this.#flags.has(flag.key)) throw new FlagpostError("conflict", `A flag with key "${flag.key}" already exists`);
    this.#flags.set(flag.key, structuredClone(flag));
    this.#revision += 1;
  }

  async get(key: string): Promise<FlagRecord | undefined> {
    const flag = this.#flags.get(key);
    return flag && structuredClone(flag);
  }

  async list({ after, limit }: { after?: string; limit: number }): Promise<FlagRecord[]> {
    const keys = [...this.#flags.keys()].filter((k) => after === undefined || k > after).sort();
    return keys.slice(0, limit).map((k) => structuredClone(this.#flags.get(k)!));
  }

  async update(key: string, changes: FlagChanges): Promise<FlagRecord | undefined> {
    const flag = this.#flags.get(key);
    if (!flag) return undefined;
    const { updatedAt, ...fields } = changes;
    const next: FlagRecord = { ...flag, ...structuredClone(fields), updatedAt };
    this.#flags.set(key, next);
    this.#revision += 1;
    return structuredClone(next);
  }

  async delete(key: string): Promise<boolean> {
    const existed = this.#flags.delete(key);
    if (existed) this.#revision += 1;
    return existed;
  }

  async revision(): Promise<number> {
    return this.#revision;
  }
}
