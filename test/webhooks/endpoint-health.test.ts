import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { type FakeClock, fakeClock } from "../support/fake-clock.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { allVerified, type Receiver, startReceiver } from "./support/receiver.js";

/**
 * An endpoint that failed every attempt for 5 days is disabled, on a fake clock. The receiver
 * checks signatures on arrival against `Date.now()`, so `Date` follows the fake clock too (only
 * `Date`: timers stay real).
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describeEachStorage("webhook endpoint health", (storage: () => Storage) => {
  let receiver: Receiver;
  let clock: FakeClock;
  let fp: Flagpost;

  beforeEach(async () => {
    receiver = await startReceiver();
    clock = fakeClock(Date.now());
    vi.useFakeTimers({ toFake: ["Date"], now: clock.now() });
    fp = createFlagpost({
      storage: storage(),
      clock,
      logger: silentLogger,
      webhooks: { allowPrivateNetworks: true, retrySchedule: "1h", retryJitter: 0, autoStart: false },
    });
    await fp.ready();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await fp.close();
    await receiver.close();
  });

  function advance(ms: number): void {
    clock.advance(ms);
    vi.setSystemTime(clock.now());
  }

  async function endpoint() {
    const hook = await fp.webhooks.create({ endpoint: `${receiver.url}/health`, events: ["flag.created"] });
    receiver.secrets = [hook.signing_secret];
    return hook;
  }

  it("disables an endpoint whose every attempt failed for 5 days; it then gets nothing", async () => {
    const hook = await endpoint();
    receiver.answer = () => ({ status: 500 });
    await fp.flags.create({ key: "day-0" });
    expect(await fp.webhooks.worker.runOnce()).toBe(1);
    advance(HOUR);
    expect(await fp.webhooks.worker.runOnce()).toBe(1); // the retry, the last of a "1h" schedule
    expect(await fp.webhooks.worker.runOnce()).toBe(0);
    for (const day of [2, 4]) {
      advance(2 * DAY - HOUR);
      await fp.flags.create({ key: `day-${day}` });
      await fp.webhooks.worker.runOnce();
      expect((await fp.webhooks.get(hook.id)).status, `day ${day}`).toBe("enabled");
      advance(HOUR);
      await fp.webhooks.worker.runOnce();
    }
    advance(DAY); // day 5 and an hour: the failing run began on day 0
    await fp.flags.create({ key: "day-5" });
    await fp.webhooks.worker.runOnce();
    expect((await fp.webhooks.get(hook.id)).status).toBe("disabled");
    const sent = receiver.received.length;
    expect(sent).toBe(7);
    expect(allVerified(receiver.received)).toBe(true);

    await fp.flags.create({ key: "day-5-later" });
    advance(HOUR);
    expect(await fp.webhooks.worker.runOnce()).toBe(1); // day 5's retry: failed without a request
    expect(receiver.received).toHaveLength(sent);
    expect((await fp.webhooks.events(hook.id)).data.map((e) => e.status)).toEqual(Array(4).fill("failed"));

    // Enabled again, it starts afresh: one failure does not disable it.
    await fp.webhooks.update(hook.id, { status: "enabled" });
    await fp.flags.create({ key: "again" });
    await fp.webhooks.worker.runOnce();
    expect((await fp.webhooks.get(hook.id)).status).toBe("enabled");
  });

  it("keeps an endpoint that succeeded in between: a 2xx ends the failing run", async () => {
    const hook = await endpoint();
    let failing = true;
    receiver.answer = () => ({ status: failing ? 503 : 200 });
    await fp.flags.create({ key: "first" });
    await fp.webhooks.worker.runOnce();
    advance(3 * DAY);
    failing = false;
    await fp.flags.create({ key: "ok" });
    await fp.webhooks.worker.runOnce();
    failing = true;
    advance(3 * DAY);
    await fp.flags.create({ key: "late" });
    await fp.webhooks.worker.runOnce();
    expect((await fp.webhooks.get(hook.id)).status).toBe("enabled");
    expect(allVerified(receiver.received)).toBe(true);
  });

  it("signs with the previous secret beside the new one for 24 hours after a rotation, then with the new alone", async () => {
    const hook = await endpoint();
    const rotated = await fp.webhooks.rotateSecret(hook.id);
    receiver.secrets = [rotated.signing_secret, hook.signing_secret];
    advance(DAY - 1000);
    await fp.flags.create({ key: "within-a-day" });
    await fp.webhooks.worker.runOnce();
    advance(2000);
    await fp.flags.create({ key: "after-a-day" });
    await fp.webhooks.worker.runOnce();
    const [within, after] = receiver.received;
    expect(within!.signature.split(" ")).toHaveLength(2);
    expect(within!.verified).toEqual([
      { resend: true, standard: true },
      { resend: true, standard: true },
    ]);
    expect(after!.signature.split(" ")).toHaveLength(1);
    expect(after!.verified).toEqual([
      { resend: true, standard: true },
      { resend: false, standard: false },
    ]);
  });
});
