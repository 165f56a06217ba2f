import { describe, expect, it } from "vitest";
import type { Storage } from "../../src/ports/storage/index.js";

/**
 * What a backend hands the conformance suite. `create` returns a migrated, empty storage for one
 * test; `destroy` releases it. A backend that lacks a capability names it in `skip` with the
 * reason, and the suite skips exactly those tests, visibly, by that name.
 */
export interface StorageHarness {
  name: string;
  create(): Promise<Storage>;
  destroy(storage: Storage): Promise<void>;
  /**
   * Closes `storage` and opens a new Storage on the same data, as a restarted process would.
   * Backends that lack the "durable" capability need not provide it.
   */
  reopen?(storage: Storage): Promise<Storage>;
  /**
   * Opens `count` storages on one fresh, empty, unmigrated database, each with its own
   * connections, as `count` processes would. `dispose` closes them and removes the database.
   * Backends that lack the "shared" capability need not provide it.
   */
  openShared?(count: number): Promise<{ storages: Storage[]; dispose(): Promise<void> }>;
  /** Runs once before the backend's tests (create a database, a schema). */
  setup?(): Promise<void>;
  /** Runs once after them (drop what setup made). */
  teardown?(): Promise<void>;
  skip?: Partial<Record<Capability, string>>;
}

/** Behaviour some backends cannot offer; each skip states why. */
export type Capability =
  /** What was written is still there after the storage is closed and opened again. */
  | "durable"
  /** Several processes can open the same data at once (each with its own connections). */
  | "shared";

/**
 * Registers the tests of one capability. A backend that declares it lacks the capability gets,
 * instead of skipped tests, one test checking the declaration is consistent (the harness offers
 * no way to exercise it), titled with the declared reason so the gap stays visible in the output.
 */
export function describeCapability(
  harness: StorageHarness,
  capability: Capability,
  title: string,
  provider: keyof StorageHarness,
  register: () => void,
): void {
  const reason = harness.skip?.[capability];
  if (reason === undefined) {
    describe(title, register);
    return;
  }
  describe(title, () => {
    it(`is not offered by ${harness.name}: ${reason}`, () => {
      expect(
        harness[provider],
        `${harness.name} declares no "${capability}" capability yet provides ${String(provider)}`,
      ).toBeUndefined();
    });
  });
}
