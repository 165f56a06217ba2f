import { FlagpostError } from "../errors.js";
import { flagChanges } from "../flags/history-diff.js";
import { uuidv7 } from "../ids.js";
import type { FlagAudit, FlagChanges, FlagHistoryAction, FlagRecord, FlagRepository } from "../storage/index.js";
import type { MemoryFlagHistoryRepository } from "./memory-flag-history.js";

export class MemoryFlagRepository implements FlagRepository {
  readonly #flags = new Map<string, FlagRecord>();
  readonly #history: MemoryFlagHistoryRepository;
  #revision = 0;

  constructor(history: MemoryFlagHistoryRepository) {
    this.#history = history;
  }

  async insert(flag: FlagRecord, audit?: FlagAudit): Promise<void> {
    if (this.#flags.has(flag.key)) throw new FlagpostError("conflict", `A flag with key "${flag.key}" already exists`);
    this.#flags.set(flag.key, structuredClone(flag));
    this.#revision += 1;
    this.#record(flag.key, "created", undefined, flag, audit);
  }

  async get(key: string): Promise<FlagRecord | undefined> {
    const flag = this.#flags.get(key);
    return flag && structuredClone(flag);
  }

  async list({ after, limit }: { after?: string; limit: number }): Promise<FlagRecord[]> {
    const keys = [...this.#flags.keys()].filter((k) => after === undefined || k > after).sort();
    return keys.slice(0, limit).map((k) => structuredClone(this.#flags.get(k)!));
  }

  async update(key: string, changes: FlagChanges, audit?: FlagAudit): Promise<FlagRecord | undefined> {
    const flag = this.#flags.get(key);
    if (!flag) return undefined;
    const { updatedAt, ...fields } = changes;
    const next: FlagRecord = { ...flag, ...structuredClone(fields), updatedAt };
    this.#flags.set(key, next);
    this.#revision += 1;
    this.#record(key, audit?.action ?? "updated", flag, next, audit);
    return structuredClone(next);
  }

  async delete(key: string, audit?: FlagAudit): Promise<boolean> {
    const flag = this.#flags.get(key);
    if (!flag) return false;
    this.#flags.delete(key);
    this.#revision += 1;
    this.#record(key, "deleted", flag, undefined, audit);
    return true;
  }

  async revision(): Promise<number> {
    return this.#revision;
  }

  #record(flagKey: string, action: FlagHistoryAction, before: FlagRecord | undefined, after: FlagRecord | undefined, audit: FlagAudit | undefined): void {
    if (!audit) return;
    this.#history.append({ id: uuidv7(), flagKey, action, at: audit.at, actor: audit.actor, changes: flagChanges(before, after) });
  }
}
