import { expect, it } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { ScheduleWorker } from "../../src/flags/schedules/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { fakeClock } from "../support/fake-clock.js";
import { describeEachStorage } from "../support/storage-backends.js";

// Issue 27: a scheduled change may set variants with values (checked when scheduled, as a PATCH
// is); once applied, getValue serves the new value and the history names the value's path.
describeEachStorage("scheduled value changes", (storage) => {
  const clock = fakeClock(Date.parse("2026-09-01T12:00:00.000Z"));

  async function open(s: Storage): Promise<Flagpost> {
    const fp = createFlagpost({ storage: s, clock, logger: silentLogger, flagSchedules: { autoStart: false } });
    await fp.ready();
    return fp;
  }

  const variants = (text: string) => [
    { key: "a", weight: 100, value: { text } },
    { key: "b", weight: 0, value: { text: "unused" } },
  ];

  it("stores the values, refuses mixed types when scheduled, and serves the new value once applied", async () => {
    const fp = await open(storage());
    try {
      await fp.flags.create({ key: "banner", enabled: true, variants: variants("Spring sale") });
      await expect(
        fp.flags.schedules.create("banner", {
          at: new Date(clock.now() + 60_000).toISOString(),
          changes: {
            variants: [
              { key: "a", weight: 100, value: 1 },
              { key: "b", weight: 0, value: "x" },
            ],
          },
        }),
      ).rejects.toMatchObject({ code: "validation_error" });
      const made = await fp.flags.schedules.create("banner", {
        at: new Date(clock.now() + 60_000).toISOString(),
        changes: { variants: variants("Summer sale") },
      });
      expect(made.changes).toEqual({ variants: variants("Summer sale") });
      expect(fp.getValue("banner", { userId: "u1" }, { text: "" })).toEqual({ text: "Spring sale" });
      clock.advance(60_000);
      expect(
        await new ScheduleWorker({ storage: storage(), flags: fp.flags, clock, logger: silentLogger }).runOnce(),
      ).toBe(1);
      await expect.poll(() => fp.getValue("banner", { userId: "u1" }, { text: "" })).toEqual({ text: "Summer sale" });
      const [latest] = await storage().flagHistory.list("banner", { limit: 1 });
      expect(latest?.changes).toEqual([{ path: "variants.0.value.text", before: "Spring sale", after: "Summer sale" }]);
    } finally {
      await fp.close();
    }
  });
});
