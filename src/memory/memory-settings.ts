import type { SettingsRepository } from "../ports/storage/index.js";

/** Settings in memory: the first value stored under a name stays. */
export class MemorySettingsRepository implements SettingsRepository {
  readonly #values = new Map<string, string>();

  async getOrCreateSetting(name: string, initial: string): Promise<string> {
    if (!this.#values.has(name)) this.#values.set(name, initial);
    return this.#values.get(name)!;
  }
}
