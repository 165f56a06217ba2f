import { describe, expect, it } from "vitest";
import { PARTS } from "../../bench/parts.js";

/**
 * Each benchmark part runs on tiny sizes so it cannot rot; its numbers are not looked at here.
 * The parts run one after another within a file (they start servers and child processes of their
 * own), and took about 5 minutes in one file on a loaded 2-core machine, the `http` part alone
 * 1½: the parts at even places in PARTS run in test/bench-smoke.test.ts and the odd ones in
 * test/bench-smoke-odd.test.ts, so two workers share them, and every part is in one of the two
 * whatever is added.
 */
export function describeSmokeRuns(parity: 0 | 1): void {
  const parts = PARTS.filter((_, index) => index % 2 === parity);
  describe(`benchmark parts at ${parity === 0 ? "even" : "odd"} places (smoke run)`, () => {
    it.each(parts.map((p) => [p.name, p] as const))(
      "%s runs and reports a table",
      async (_name, part) => {
        const markdown = await part.run({ smoke: true, log: () => undefined });
        expect(markdown).toMatch(/^\|.+\|$/m);
      },
      120_000,
    );
  });
}
