import { describe, expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";

/** flagpost_suppressions_added_total counts addresses the list gained, once each, when the write commits. */
describe("suppressionsAdded in fp.metrics()", () => {
  it("counts each address added once, and not an address already on the list", async () => {
    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    await fp.ready();
    await fp.suppressions.addBatch({ emails: ["a@example.com", "b@example.com", "A@example.com"] });
    await fp.suppressions.add({ email: "b@example.com" });
    expect(fp.metrics()).toMatchObject({ suppressionsAdded: 2 });
    await fp.suppressions.remove("a@example.com");
    await fp.suppressions.add({ email: "a@example.com" });
    expect(fp.metrics()).toMatchObject({ suppressionsAdded: 3 });
    await fp.close();
  });
});
