import { describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { fakeClock } from "../support/fake-clock.js";

/**
 * Memory storage whose key reads are counted and, while `hold()` is on, wait until released, so
 * that calls can be made to overlap one read on purpose.
 */
function heldStorage(): { storage: Storage; reads: () => number; hold(): void; release(): void } {
  const storage = memoryStorage();
  let reads = 0;
  let gate: Promise<void> | undefined;
  let open: (() => void) | undefined;
  const findByHash = storage.apiKeys.findByHash.bind(storage.apiKeys);
  storage.apiKeys.findByHash = async (hash) => {
    reads += 1;
    // Read first, answer after the gate: a revocation committed while held is not seen by this read.
    const found = await findByHash(hash);
    await gate;
    return found;
  };
  return {
    storage,
    reads: () => reads,
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release() {
      open?.();
      gate = undefined;
    },
  };
}

describe("ApiKeys cache", () => {
  it("answers concurrent verifications of an uncached key with one storage read", async () => {
    const { storage, reads } = heldStorage();
    const clock = fakeClock();
    const made = await new ApiKeys(storage, clock).create({ scopes: ["flags:evaluate"] });
    const keys = new ApiKeys(storage, clock); // another process: nothing cached
    const answers = await Promise.all(Array.from({ length: 50 }, () => keys.verify(made.key)));
    expect(reads()).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]?.id).toBe(made.id);
  });

  it("answers concurrent verifications of an unknown key with one storage read, then none for a second", async () => {
    const { storage, reads } = heldStorage();
    const clock = fakeClock();
    const keys = new ApiKeys(storage, clock);
    const answers = await Promise.all(Array.from({ length: 50 }, () => keys.verify("fp_unknown-key-0123456789")));
    expect(answers.every((a) => a === undefined)).toBe(true);
    expect(reads()).toBe(1);
    await keys.verify("fp_unknown-key-0123456789");
    expect(reads()).toBe(1);
  });

  it("reads each key once per second at most under steady use, and refreshes it with one read", async () => {
    const { storage, reads } = heldStorage();
    const clock = fakeClock();
    const made = await new ApiKeys(storage, clock).create();
    const keys = new ApiKeys(storage, clock);
    for (let ms = 0; ms < 3_000; ms += 10) {
      await Promise.all(Array.from({ length: 5 }, () => keys.verify(made.key)));
      clock.advance(10);
    }
    // 1,500 verifications over 3 s of the clock: a read when first seen, then one per second.
    expect(reads()).toBe(3);
  });

  it("refuses a key revoked by another process within 1 s, even when refreshed by concurrent calls", async () => {
    const { storage, reads } = heldStorage();
    const clock = fakeClock();
    const keys = new ApiKeys(storage, clock);
    const elsewhere = new ApiKeys(storage, clock);
    const made = await elsewhere.create();
    expect(await keys.verify(made.key)).toBeDefined();
    await elsewhere.revoke(made.id);
    clock.advance(999);
    expect(await keys.verify(made.key)).toBeDefined(); // within the cache period
    clock.advance(1);
    const before = reads();
    const answers = await Promise.all(Array.from({ length: 20 }, () => keys.verify(made.key)));
    expect(answers.every((a) => a === undefined)).toBe(true);
    expect(reads() - before).toBe(1);
  });

  it("does not keep, or let later calls join, a read that a revocation in this process overtook", async () => {
    const held = heldStorage();
    const clock = fakeClock();
    const keys = new ApiKeys(held.storage, clock);
    const made = await keys.create();
    clock.advance(1_000); // the entry create() left is stale: the next verify reads
    held.hold();
    const before = keys.verify(made.key); // reads the unrevoked key, then waits at the gate
    await new Promise((resolve) => setImmediate(resolve));
    await keys.revoke(made.id);
    // A call after revoke() resolved starts its own read instead of joining the one in flight.
    const after = keys.verify(made.key);
    held.release();
    expect(await after).toBeUndefined();
    expect(held.reads()).toBe(2);
    await before; // began before the revocation: what it answers is not the question
    expect(await keys.verify(made.key)).toBeUndefined(); // nor was its answer cached
  });
});
