import { afterEach, describe, expect, it } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import { waitUntil } from "../flags/support/wait.js";
import { fakeClock } from "../support/fake-clock.js";
import { gatedTransport, request, watchedStorage } from "./support/outbox.js";

// The worker stores the outcomes of sends that finish together in one write (group commit). It
// must still hold each send's slot until its outcome is stored, never lose or step back a status,
// and leave an email whose outcome was not stored queued and leased, so that it is sent again
// (same Message-ID) once the lease ends.

describe("outbox worker: outcome writes", () => {
  let fp: Flagpost | undefined;
  afterEach(async () => {
    await fp?.close();
    fp = undefined;
  });

  async function setup(concurrency = 5) {
    const watched = watchedStorage();
    const gated = gatedTransport();
    const clock = fakeClock();
    fp = createFlagpost({
      storage: watched.storage,
      clock,
      logger: silentLogger,
      transport: gated.transport,
      emailWorker: { autoStart: false, concurrency },
    });
    await fp.ready();
    return { ...watched, ...gated, clock, fp, worker: fp.emails.worker! };
  }

  const statuses = async (fp: Flagpost, ids: string[]) =>
    Promise.all(ids.map(async (id) => (await fp.emails.get(id)).status));

  it("stores the outcomes of sends that finish together in one write", async () => {
    const t = await setup(5);
    const ids = await Promise.all([0, 1, 2, 3, 4].map(async (i) => (await t.fp.emails.send(request(i))).id));
    const round = t.worker.runOnce();
    await waitUntil(() => t.waiting.length === 5, { timeoutMs: 5_000 });
    t.finishAll();
    expect(await round).toBe(5);
    expect(t.writes).toEqual([5]);
    expect(await statuses(t.fp, ids)).toEqual(["sent", "sent", "sent", "sent", "sent"]);
  });

  it("counts an email as in flight until its outcome is stored; outcomes that finish during a write go into the next", async () => {
    const t = await setup(4);
    const ids = await Promise.all([0, 1, 2, 3].map(async (i) => (await t.fp.emails.send(request(i))).id));
    t.worker.start();
    await waitUntil(() => t.waiting.length === 4, { timeoutMs: 5_000 });
    const release = t.holdWrites();
    t.waiting.shift()!.finish();
    await waitUntil(() => t.writes.length === 1, { timeoutMs: 5_000 });
    t.finishAll(); // three more finish while the first write is held
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.worker.inFlight).toBe(4); // sent, not stored: still this worker's
    release();
    await waitUntil(async () => (await statuses(t.fp, ids)).every((s) => s === "sent"), { timeoutMs: 5_000 });
    expect(t.writes).toEqual([1, 3]);
    await waitUntil(() => t.worker.inFlight === 0, { timeoutMs: 5_000 });
  });

  it("stop() waits for outcomes that are still being written", async () => {
    const t = await setup(3);
    const ids = await Promise.all([0, 1].map(async (i) => (await t.fp.emails.send(request(i))).id));
    t.worker.start();
    await waitUntil(() => t.waiting.length === 2, { timeoutMs: 5_000 });
    const release = t.holdWrites();
    t.finishAll();
    await waitUntil(() => t.writes.length === 1, { timeoutMs: 5_000 });
    let stopped = false;
    const stopping = t.worker.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await statuses(t.fp, ids)).toEqual(["sent", "sent"]);
  });

  it("leaves emails whose outcome write failed queued and leased, and sends them again with the same Message-ID after the lease", async () => {
    const t = await setup(5);
    const ids = await Promise.all([0, 1, 2].map(async (i) => (await t.fp.emails.send(request(i))).id));
    t.failNextWrites(1);
    const round = t.worker.runOnce();
    await waitUntil(() => t.waiting.length === 3, { timeoutMs: 5_000 });
    t.finishAll();
    await round;
    for (const id of ids)
      expect(await t.storage.emails.getEmail(id)).toMatchObject({
        status: "queued",
        attempts: 1,
        leaseOwner: t.worker.owner,
      });
    expect(await t.worker.runOnce()).toBe(0); // still leased
    t.clock.advance(5 * 60 * 1000);
    const again = t.worker.runOnce();
    await waitUntil(() => t.waiting.length === 3, { timeoutMs: 5_000 });
    t.finishAll();
    expect(await again).toBe(3);
    expect(await statuses(t.fp, ids)).toEqual(["sent", "sent", "sent"]);
    expect(t.sent).toHaveLength(6);
    expect(new Set(t.sent).size).toBe(3); // each twice, with its own Message-ID both times
  });
});
