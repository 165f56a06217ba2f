import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { type EventSink, EXPOSURE_EVENT, ExposureRecorder } from "../../src/flags/client/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { waitUntil } from "./support/wait.js";

type Enqueued = Parameters<EventSink["enqueue"]>[0];

/** A sink as the EventTracker's enqueue behaves: takes an event, returns nothing, buffers elsewhere. */
function memorySink(): EventSink & { events: Enqueued[] } {
  const events: Enqueued[] = [];
  return { events, enqueue: (event) => void events.push(event) };
}

function fakeClock(start = Date.parse("2026-03-01T10:00:00Z")) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe("exposure events through createFlagpost", () => {
  async function setup(windowMs = 60_000) {
    const sink = memorySink();
    const clock = fakeClock();
    const fp = createFlagpost({
      storage: memoryStorage(),
      clock,
      logger: silentLogger,
      exposures: { enabled: true, windowMs, sink },
    });
    await fp.ready();
    await fp.flags.create({
      key: "checkout",
      enabled: true,
      rules: [
        { type: "users", userIds: ["u1"] },
        { type: "percentage", percentage: 0 },
      ],
    });
    return { sink, clock, fp };
  }

  it("gives exposures of a flag with variants experimentId (the flag key) and the variant, from getVariant and isEnabled", async () => {
    const { sink, fp } = await setup();
    await fp.flags.update("checkout", {
      variants: [
        { key: "control", weight: 50 },
        { key: "treatment", weight: 50 },
      ],
    });
    const variant = fp.getVariant("checkout", { userId: "u1" });
    expect(variant).toMatch(/^(control|treatment)$/);
    fp.getVariant("checkout", { userId: "u1" }); // de-duplicated
    fp.isEnabled("checkout", { userId: "u2" }); // off for u2: no variant
    await waitUntil(() => sink.events.length === 2, { timeoutMs: 5_000 });
    expect(sink.events.map((e) => e.properties)).toEqual([
      { flagKey: "checkout", enabled: true, reason: "rule_match", ruleIndex: 0, experimentId: "checkout", variant },
      { flagKey: "checkout", enabled: false, reason: "no_rule_match" },
    ]);
    await fp.close();
  });

  it("records isEnabled results as $exposure events, once per user, flag and result within the window", async () => {
    const { sink, clock, fp } = await setup();
    for (let i = 0; i < 5; i++) {
      fp.isEnabled("checkout", { userId: "u1" });
      fp.isEnabled("checkout", { userId: "u2" });
    }
    expect(sink.events).toEqual([]); // handed over in the background, never on the call
    await waitUntil(() => sink.events.length === 2, { timeoutMs: 5_000 });
    expect(sink.events).toEqual([
      {
        event: EXPOSURE_EVENT,
        userId: "u1",
        timestamp: "2026-03-01T10:00:00.000Z",
        properties: { flagKey: "checkout", enabled: true, reason: "rule_match", ruleIndex: 0 },
      },
      {
        event: EXPOSURE_EVENT,
        userId: "u2",
        timestamp: "2026-03-01T10:00:00.000Z",
        properties: { flagKey: "checkout", enabled: false, reason: "no_rule_match" },
      },
    ]);

    // A new result for the same user is a new exposure; the same result again after the window too.
    await fp.flags.update("checkout", { enabled: false });
    fp.isEnabled("checkout", { userId: "u1" });
    clock.advance(59_999);
    fp.isEnabled("checkout", { userId: "u2" }); // false again, within the window
    clock.advance(1);
    fp.isEnabled("checkout", { userId: "u2" }); // false again, window over
    fp.flagClient.evaluate("checkout", { userId: "u3" }); // the detail variant records too
    await fp.close(); // flushes
    expect(
      sink.events
        .slice(2)
        .map((e) => [
          e.userId,
          (e.properties as { enabled: boolean }).enabled,
          (e.properties as { reason: string }).reason,
        ]),
    ).toEqual([
      ["u1", false, "disabled"],
      ["u2", false, "disabled"],
      ["u3", false, "disabled"],
    ]);
  });

  it("records nothing for unknown flags or calls without a userId", async () => {
    const { sink, fp } = await setup();
    fp.isEnabled("nope", { userId: "u1" });
    fp.isEnabled("checkout", {});
    fp.isEnabled("checkout");
    await fp.close();
    expect(sink.events).toEqual([]);
  });
});

describe("ExposureRecorder", () => {
  const clock = fakeClock();

  it("never throws at the caller when the sink throws or rejects, and counts it", async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    const throwing = new ExposureRecorder(
      {
        enqueue: () => {
          throw new Error("sink down");
        },
      },
      { clock, logger },
    );
    const rejecting = new ExposureRecorder(
      { enqueue: () => Promise.reject(new Error("sink down")) },
      { clock, logger },
    );
    for (const recorder of [throwing, rejecting]) {
      expect(() => recorder.record("f", "u1", true, "no_rules", undefined)).not.toThrow();
      expect(() => recorder.flush()).not.toThrow();
    }
    await delay(0);
    expect(throwing.stats().failed).toBe(1);
    expect(rejecting.stats().failed).toBe(1);
    expect(warnings).toEqual(["exposure events could not be enqueued", "exposure events could not be enqueued"]);
  });

  it("remembers at most maxKeys triples, forgetting the oldest first", () => {
    const sink = memorySink();
    const recorder = new ExposureRecorder(sink, { clock, logger: silentLogger, maxKeys: 100 });
    for (let i = 0; i < 1_000; i++) recorder.record("f", `u${i}`, true, "no_rules", undefined);
    expect(recorder.remembered).toBeLessThanOrEqual(100);
    expect(recorder.remembered).toBeGreaterThanOrEqual(50);
    recorder.record("f", "u999", true, "no_rules", undefined); // still remembered
    recorder.record("f", "u0", true, "no_rules", undefined); // forgotten: reported again
    recorder.flush();
    expect(sink.events).toHaveLength(1_001);
    expect(recorder.stats()).toMatchObject({ sent: 1_001, deduplicated: 1 });
  });

  it("drops and counts events past maxBuffer rather than grow without bound", () => {
    const sink = memorySink();
    const recorder = new ExposureRecorder(sink, { clock, logger: silentLogger, maxBuffer: 10 });
    for (let i = 0; i < 25; i++) recorder.record("f", `u${i}`, true, "no_rules", undefined);
    recorder.flush();
    expect(sink.events).toHaveLength(10);
    expect(recorder.stats().dropped).toBe(15);
  });
});
