import { afterEach, describe, expect, it } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { FlagStreamBatch } from "../../src/flags/store/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";

/**
 * Issue 24 item 11: with thousands of open flag streams, one batch told to every subscriber in one
 * go held the event loop (and every evaluation waiting on it) for tens of milliseconds. The fan-out
 * now yields between slices; these tests hold it to that and to the order each subscriber sees.
 */
const SUBSCRIBERS = 1_000;

type FlagStreamSubscriber = Parameters<Flagpost["flagStream"]["subscribe"]>[0];

function subscriber(onChanged: (batch: FlagStreamBatch) => void): FlagStreamSubscriber {
  return { start: () => undefined, changed: onChanged, keepAlive: () => undefined, closed: () => undefined };
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("the flag stream's fan-out to many subscribers", () => {
  const opened: Flagpost[] = [];
  afterEach(async () => {
    for (const fp of opened.splice(0)) await fp.close();
  });

  async function open(): Promise<Flagpost> {
    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    opened.push(fp);
    await fp.ready();
    return fp;
  }

  it("lets other work run before the last subscriber is told", async () => {
    const fp = await open();
    let told = 0;
    let toldWhenOtherWorkRan: number | undefined;
    for (let i = 0; i < SUBSCRIBERS; i++)
      await fp.flagStream.subscribe(
        subscriber(() => {
          told += 1;
          // Other work queued while the fan-out begins: a request waiting on the event loop.
          if (told === 1) setImmediate(() => (toldWhenOtherWorkRan = told));
        }),
      );
    await fp.flags.create({ key: "checkout" });
    await eventually(() => told === SUBSCRIBERS, "every subscriber was told");
    expect(toldWhenOtherWorkRan).toBeDefined();
    expect(toldWhenOtherWorkRan!).toBeLessThan(SUBSCRIBERS);
  });

  it("tells every subscriber each batch once and in revision order, and skips one that left", async () => {
    const fp = await open();
    const seen: number[][] = [];
    const subscriptions = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const revisions: number[] = [];
      seen.push(revisions);
      subscriptions.push(await fp.flagStream.subscribe(subscriber((batch) => revisions.push(batch.revision))));
    }
    await fp.flags.create({ key: "a" });
    // Written while the first batch is still being told to the later subscribers.
    await fp.flags.create({ key: "b" });
    subscriptions[SUBSCRIBERS - 1]!.close();
    await fp.flags.create({ key: "c" });
    const { revision } = await fp.flagStream.state();
    await eventually(() => seen[SUBSCRIBERS - 2]!.at(-1) === revision, "the others were told the last write");
    const expected = seen[0]!;
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.at(-1)).toBe(revision);
    expect([...new Set(expected)].sort((x, y) => x - y)).toEqual(expected);
    for (const revisions of seen.slice(0, -1)) expect(revisions).toEqual(expected);
    expect(seen[SUBSCRIBERS - 1]!.at(-1)).not.toBe(revision);
  });
});
