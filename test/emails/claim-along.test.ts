import { afterEach, describe, expect, it } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import { waitUntil } from "../flags/support/wait.js";
import { fakeClock } from "../support/fake-clock.js";
import { gatedTransport, request, watchedStorage } from "./support/outbox.js";

// Where the storage can record outcomes and claim in one write, the running worker claims its
// next emails in the write of the previous ones' outcomes instead of with a commit of its own.

describe("outbox worker: claims along with outcome writes", () => {
  let fp: Flagpost | undefined;
  afterEach(async () => {
    await fp?.close();
    fp = undefined;
  });

  it("claims what it sends next in the writes of what it sent, each email once", async () => {
    const watched = watchedStorage();
    const gated = gatedTransport();
    fp = createFlagpost({
      storage: watched.storage,
      clock: fakeClock(),
      logger: silentLogger,
      transport: gated.transport,
      emailWorker: { autoStart: false, concurrency: 2 },
    });
    await fp.ready();
    const ids = await Promise.all(Array.from({ length: 12 }, async (_, i) => (await fp!.emails.send(request(i))).id));
    const worker = fp.emails.worker!;
    worker.start();
    const sentAll = async () =>
      (await Promise.all(ids.map((id) => fp!.emails.get(id)))).every((e) => e.status === "sent");
    await waitUntil(
      async () => {
        gated.finishAll();
        return sentAll();
      },
      { timeoutMs: 10_000 },
    );
    const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);
    expect(sum(watched.claims) + sum(watched.claimsAlong)).toBe(12);
    // The first claim has no write to ride on; after it, the claims ride on outcome writes.
    expect(watched.claims.filter((n) => n > 0)).toHaveLength(1);
    expect(sum(watched.claimsAlong)).toBeGreaterThanOrEqual(12 - watched.claims[0]!);
    expect(gated.sent).toHaveLength(12);
    expect(new Set(gated.sent).size).toBe(12);
  });
});
