import { describe, expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { gatedTransport, request } from "./support/outbox.js";

// The per-email reads of the send path are shared by the emails that go together: one
// suppression read for the attempts a worker starts together, one read of each sending domain
// for the sends stored by one write. Each read still goes to storage, so a change made by
// another process before it is seen.

function countedReads() {
  const storage = memoryStorage();
  const suppressionReads: string[][] = [];
  const domainReads: string[] = [];
  const { suppressions, domains } = storage;
  const counted: Storage = {
    ...storage,
    suppressions: Object.assign(Object.create(suppressions) as typeof suppressions, {
      suppressedAmong(emails: readonly string[]) {
        suppressionReads.push([...emails]);
        return suppressions.suppressedAmong(emails);
      },
    }),
    domains: Object.assign(Object.create(domains) as typeof domains, {
      getDomainByName(name: string) {
        domainReads.push(name);
        return domains.getDomainByName(name);
      },
    }),
  };
  return { storage: counted, suppressionReads, domainReads };
}

describe("send path: shared reads", () => {
  it("the attempts a worker starts together share one suppression read, which sees a suppression another process just added", async () => {
    const { storage, suppressionReads } = countedReads();
    const gate = gatedTransport();
    const fp = createFlagpost({
      storage,
      transport: gate.transport,
      logger: silentLogger,
      emailWorker: { autoStart: false },
    });
    // Another process on the same storage: the worker's process never hears of its change.
    const other = createFlagpost({ storage, logger: silentLogger, emailWorker: { autoStart: false } });
    await Promise.all([fp.ready(), other.ready()]);
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push((await fp.emails.send(request(i))).id);
    await other.suppressions.add({ email: request(3).to as string });
    const round = fp.emails.worker!.runOnce();
    while (gate.waiting.length < 5) await new Promise((resolve) => setImmediate(resolve));
    gate.finishAll();
    expect(await round).toBe(6);
    expect(suppressionReads).toHaveLength(1);
    expect(suppressionReads[0]!.sort()).toEqual(ids.map((_, i) => request(i).to as string).sort());
    const statuses = await Promise.all(ids.map(async (id) => (await fp.emails.get(id)).status));
    expect(statuses).toEqual(["sent", "sent", "sent", "failed", "sent", "sent"]);
    await Promise.all([fp.close(), other.close()]);
  });

  it("concurrent sends read their sending domain once per write, not once per email", async () => {
    const { storage, domainReads } = countedReads();
    const fp = createFlagpost({ storage, logger: silentLogger });
    await fp.ready();
    await Promise.all(Array.from({ length: 8 }, (_, i) => fp.emails.send(request(i))));
    expect(domainReads).toEqual(["example.com"]);
    await fp.close();
  });
});
