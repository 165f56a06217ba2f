import { afterEach, describe, expect, it } from "vitest";
import { listStaleFlags } from "../../cli/flags.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { fakeClock } from "../support/fake-clock.js";

let fp: Flagpost | undefined;
afterEach(async () => fp?.close());

async function stale(days: number, setup: (fp: Flagpost) => Promise<void> = async () => {}): Promise<string[]> {
  const clock = fakeClock();
  fp = createFlagpost({ storage: memoryStorage(), clock, logger: silentLogger, insights: { staleAfterDays: days } });
  await fp.ready();
  await setup(fp);
  const lines: string[] = [];
  await listStaleFlags(fp, days, { out: (line) => lines.push(line) });
  return lines;
}

/** `flagpost flags stale` says why no flag is stale, in words that fit the case. */
describe("flags stale when no flag is stale", () => {
  it("says there are no flags", async () => {
    expect(await stale(30)).toEqual(["No stale flags: there are no flags."]);
  });

  it("says every flag is younger than the window, with one day in the singular", async () => {
    const lines = await stale(1, async (fp) => {
      await fp.flags.create({ key: "fresh", enabled: true });
    });
    expect(lines).toEqual([
      "No stale flags: every flag is younger than the window (1 day), and only an older one can be stale.",
    ]);
  });
});
