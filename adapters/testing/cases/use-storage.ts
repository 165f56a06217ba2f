import { afterEach, beforeEach } from "vitest";
import type { Storage } from "../../../src/ports/storage/index.js";
import type { StorageHarness } from "../harness.js";

/** A fresh storage for each test of the enclosing describe block. */
export function useStorage(harness: StorageHarness): () => Storage {
  let storage: Storage | undefined;
  beforeEach(async () => {
    storage = await harness.create();
  });
  afterEach(async () => {
    if (storage) await harness.destroy(storage);
    storage = undefined;
  });
  return () => {
    if (!storage) throw new Error("storage is only available inside a test");
    return storage;
  };
}

/**
 * Several storages on one database, as several processes of one app open it: `open(count)` inside
 * a test; they are disposed of after it.
 */
export function useSharedStorages(harness: StorageHarness): (count: number) => Promise<Storage[]> {
  let dispose: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await dispose?.();
    dispose = undefined;
  });
  return async (count) => {
    const shared = await harness.openShared!(count);
    dispose = shared.dispose;
    return shared.storages;
  };
}

/** Two processes' storages on one database (`open` from useSharedStorages), migrated one after the other as two processes starting in turn. */
export async function openMigratedPair(open: (count: number) => Promise<Storage[]>): Promise<[Storage, Storage]> {
  const [a, b] = (await open(2)) as [Storage, Storage];
  await a.migrate();
  await b.migrate();
  return [a, b];
}

/** A storage a test creates, then closes and opens again; the last one opened is destroyed after the test. */
export function useReopenedStorage(harness: StorageHarness): {
  create: () => Promise<Storage>;
  reopen: (storage: Storage) => Promise<Storage>;
} {
  let current: Storage | undefined;
  afterEach(async () => {
    if (current) await harness.destroy(current);
    current = undefined;
  });
  return {
    create: async () => (current = await harness.create()),
    reopen: async (storage) => (current = await harness.reopen!(storage)),
  };
}
