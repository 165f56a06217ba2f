import { FlagpostError } from "../errors.js";
import type { ApiKeyRecord, ApiKeyRepository } from "../ports/storage/index.js";
import { copy, MemoryTable } from "./memory-table.js";

export class MemoryApiKeyRepository implements ApiKeyRepository {
  readonly #keys = new MemoryTable<ApiKeyRecord>((r) => r.id, { by: (r) => [r.createdAt, r.id] });

  async insert(record: ApiKeyRecord): Promise<void> {
    const taken = "That API key already exists";
    if (this.#keys.find((r) => r.hash === record.hash)) throw new FlagpostError("conflict", taken);
    this.#keys.insert([record], () => taken);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const record = this.#keys.find((r) => r.hash === hash);
    return record && copy(record);
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    return this.#keys.read(id);
  }

  async list(): Promise<ApiKeyRecord[]> {
    return this.#keys.pageAfter(undefined, Infinity);
  }

  async revoke(id: string, at: string): Promise<boolean> {
    const record = this.#keys.get(id);
    if (record) record.revokedAt ??= at;
    return record !== undefined;
  }
}
