import { describe, expect, it } from "vitest";
import { fingerprint, IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_RENEW_MS, runIdempotent } from "../../src/idempotency.js";
import { memoryStorage } from "../../src/memory/index.js";
import { fakeClock } from "../support/fake-clock.js";

// An in-flight idempotency claim lives as long as the process working on it: renewed while the
// work runs, lapsed within IDEMPOTENCY_LOCK_MS once that process is gone.

const request = { scope: "key-1", key: "retry-me", fingerprint: fingerprint("test", { a: 1 }) };

describe("idempotency claims tied to a live process", () => {
  it("lets a retry proceed once the claim of a process that died lapses, within seconds", async () => {
    const storage = memoryStorage();
    const clock = fakeClock();
    const now = clock.now();
    // The claim a crashed process left: begun, never completed, never renewed again.
    await storage.idempotency.begin({
      ...request,
      now: now,
      lockedUntil: now + IDEMPOTENCY_LOCK_MS,
      expiresAt: now + 86_400_000,
    });
    await expect(runIdempotent(storage, clock, request, async () => "second")).rejects.toMatchObject({
      code: "concurrent_idempotent_requests",
    });
    clock.advance(IDEMPOTENCY_LOCK_MS);
    expect(await runIdempotent(storage, clock, request, async () => "second")).toBe("second");
    expect(IDEMPOTENCY_LOCK_MS).toBeLessThanOrEqual(10_000);
  });

  it("keeps a claim whose work outlasts the lock in progress while its process lives", async () => {
    const storage = memoryStorage();
    const clock = fakeClock();
    let finish!: (value: string) => void;
    const first = runIdempotent(storage, clock, request, () => new Promise<string>((resolve) => (finish = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 10));
    clock.advance(IDEMPOTENCY_LOCK_MS - 1_000);
    await new Promise((resolve) => setTimeout(resolve, IDEMPOTENCY_RENEW_MS + 300)); // one heartbeat
    clock.advance(5_000); // past the first lock, within the renewed one
    await expect(runIdempotent(storage, clock, request, async () => "other")).rejects.toMatchObject({
      code: "concurrent_idempotent_requests",
    });
    finish("first");
    expect(await first).toBe("first");
    expect(await runIdempotent(storage, clock, request, async () => "other")).toBe("first"); // replayed
  }, 15_000);
});
