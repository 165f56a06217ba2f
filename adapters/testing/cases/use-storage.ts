import { afterEach, beforeEach } from "vitest";
import type { Storage } from "../../../src/internal.js";
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
