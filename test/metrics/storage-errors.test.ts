import { describe, expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";

/** flagpost_storage_errors_total counts storage failures by repository, and not the answers it gives (a conflict). */
describe("storage errors in fp.metrics()", () => {
  it("counts a failing write under its repository and leaves conflicts out", async () => {
    const inner = memoryStorage();
    let failure: Error = new Error("connection terminated");
    const storage: Storage = {
      ...inner,
      migrate: () => inner.migrate(),
      close: () => inner.close(),
      events: { ...inner.events, appendEvents: () => Promise.reject(failure) },
    };
    const fp = createFlagpost({ storage, logger: silentLogger });
    await fp.ready();
    await expect(fp.events.track({ event: "signup", userId: "u1" })).rejects.toThrow();
    failure = new FlagpostError("conflict", "taken");
    await expect(fp.events.track({ event: "signup", userId: "u2" })).rejects.toThrow("taken");
    expect(fp.metrics()).toMatchObject({ storageErrors: { events: 1 }, eventsAccepted: 0 });
    await fp.close().catch(() => undefined);
  });
});
