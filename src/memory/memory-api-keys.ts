import { FlagpostError } from "../errors.js";
import type { ApiKeyRecord, ApiKeyRepository } from "../ports/storage/index.js";

export class MemoryApiKeyRepository implements ApiKeyRepository {
  readonly #byId = new Map<string, ApiKeyRecord>();

  async insert(record: ApiKeyRecord): Promise<void> {
    for (const existing of this.#byId.values()) {
      if (existing.id === record.id || existing.hash === record.hash)
        throw new FlagpostError("conflict", "That API key already exists");
    }
    this.#byId.set(record.id, structuredClone(record));
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    for (const record of this.#byId.values()) if (record.hash === hash) return structuredClone(record);
    return undefined;
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    const record = this.#byId.get(id);
    return record && structuredClone(record);
  }

  async list(): Promise<ApiKeyRecord[]> {
    return [...this.#byId.values()]
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1))
      .map((r) => structuredClone(r));
  }

  async revoke(id: string, at: string): Promise<boolean> {
    const record = this.#byId.get(id);
    if (!record) return false;
    record.revokedAt ??= at;
    return true;
  }
}
