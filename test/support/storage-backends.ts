import { afterAll, beforeAll, describe } from "vitest";
import { memoryStorage } from "../../src/memory/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { useStorage } from "../../adapters/testing/cases/use-storage.js";
import { kyselyHarness } from "../conformance/kysely-harness.js";
import { BACKENDS, describeIfBackend } from "./databases.js";

/**
 * Registers the same tests once per storage: memory, then SQLite, PostgreSQL and MySQL (each when
 * enabled, see databases.ts). `storage()` is a fresh, empty, migrated storage for each test.
 */
export function describeEachStorage(title: string, register: (storage: () => Storage, backend: string) => void): void {
  describe(`${title} (memory)`, () => {
    register(useStorage({ name: "memory", create: async () => memoryStorage(), destroy: (s) => s.close() }), "memory");
  });
  for (const backend of BACKENDS) {
    describeIfBackend(backend, `${title} (${backend})`, () => {
      const harness = kyselyHarness(backend);
      beforeAll(async () => harness.setup?.());
      afterAll(async () => harness.teardown?.());
      register(useStorage(harness), backend);
    });
  }
}
