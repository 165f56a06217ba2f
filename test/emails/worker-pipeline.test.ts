import { afterEach, describe, expect, it } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { OutboxWorkerOptions } from "../../src/emails/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { waitUntil } from "../flags/support/wait.js";
import { fakeClock } from "../support/fake-clock.js";
import { gatedTransport, request, watchedStorage } from "./support/outbox.js";

// The worker claims up to 2 × concurrency emails at a time into a local queue and sends at most
// `concurrency` at once. Claimed emails are its own until their lease ends: it sends them even
// when stopping, and never starts one whose lease could run out during the send.

describe("outbox worker: claims, queue and slots", () => {
  let fp: Flagpost | undefined;
  afterEach(async () => {
    await fp?.close();
    fp = undefined;
  });

  async function setup(worker: OutboxWorkerOptions, emails: number) {
    const watched = watchedStorage();
    const gated = gatedTransport();
    const clock = fakeClock();
    fp = createFlagpost({
      storage: watched.storage,
      clock,
      logger: silentLogger,
      transport: gated.transport,
      emailWorker: { autoStart: false, ...worker },
    });
    await fp.ready();
    const ids: string[] = [];
    for (let i = 0; i < emails; i++) ids.push((await fp.emails.send(request(i))).id);
    return { ...watched, ...gated, clock, fp, ids, worker: fp.emails.worker! };
  }

  const statuses = async (fp: Flagpost, ids: string[]) =>
    Promise.all(ids.map(async (id) => (await fp.emails.get(id)).status));

  it("sends at most `concurrency` at once, claiming up to twice that at a time", async () => {
    const t = await setup({ concurrency: 3 }, 14);
    t.worker.start();
    while ((await statuses(t.fp, t.ids)).some((s) => s !== "sent")) {
      await waitUntil(() => t.waiting.length > 0, { timeoutMs: 5_000 });
      t.finishAll();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(t.mostAtOnce()).toBe(3);
    expect(t.claims[0]).toBe(6);
    // Later claims ride on the writes of outcomes (claimsAlong) or are made on their own.
    const claims = [...t.claims, ...t.claimsAlong];
    expect(Math.max(...claims)).toBeLessThanOrEqual(6);
    expect(claims.reduce((a, b) => a + b, 0)).toBe(14);
    expect(t.sent).toHaveLength(14);
  });

  it("stop() sends what it already claimed, stores those outcomes, and claims nothing more", async () => {
    const t = await setup({ concurrency: 2 }, 10);
    t.worker.start();
    await waitUntil(() => t.waiting.length === 2, { timeoutMs: 5_000 });
    expect(t.claims).toEqual([4]); // two sending, two queued
    const stopping = t.worker.stop();
    while (t.sent.length < 4) {
      await waitUntil(() => t.waiting.length > 0, { timeoutMs: 5_000 });
      t.finishAll();
    }
    await stopping;
    const after = await statuses(t.fp, t.ids);
    expect(after.filter((s) => s === "sent")).toHaveLength(4);
    for (const id of t.ids.filter((_, i) => after[i] === "queued"))
      expect(await t.storage.emails.getEmail(id)).toMatchObject({ attempts: 0 });
    expect(t.worker.inFlight).toBe(0);
  });

  it("leaves a queued email whose lease could end during its send, and sends it once the lease is over", async () => {
    const t = await setup({ concurrency: 1, leaseMs: 10_000, sendTimeoutMs: 5_000 }, 2);
    t.worker.start();
    await waitUntil(() => t.waiting.length === 1, { timeoutMs: 5_000 });
    expect(t.claims).toEqual([2]);
    t.clock.advance(6_000); // the second has 4 s of lease left: less than a send may take
    t.finishAll();
    await waitUntil(async () => (await statuses(t.fp, t.ids))[0] === "sent" && t.worker.inFlight === 0, {
      timeoutMs: 5_000,
    });
    expect(t.waiting).toHaveLength(0);
    expect(await t.storage.emails.getEmail(t.ids[1]!)).toMatchObject({
      status: "queued",
      attempts: 1,
      leaseOwner: t.worker.owner,
    });
    t.clock.advance(4_000); // lease over
    t.worker.wake();
    await waitUntil(() => t.waiting.length === 1, { timeoutMs: 5_000 });
    t.finishAll();
    await waitUntil(async () => (await statuses(t.fp, t.ids))[1] === "sent", { timeoutMs: 5_000 });
    expect(await t.storage.emails.getEmail(t.ids[1]!)).toMatchObject({ attempts: 2 });
    expect(t.sent).toHaveLength(2);
  });
});
