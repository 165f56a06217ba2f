import { describe, expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import type { EmailRecord } from "../../src/ports/storage/emails.js";
import { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { request } from "./support/outbox.js";

// Concurrent send() calls share one write (group commit); each still answers only once its own
// email is stored, and a write that fails for the group is retried email by email.

function countingStorage(failFirstGroups = 0, refuse?: (record: EmailRecord) => boolean) {
  const storage = memoryStorage();
  const writes: number[] = [];
  let failures = failFirstGroups;
  const emails = storage.emails;
  const counted: Storage = {
    ...storage,
    emails: {
      getEmail: emails.getEmail.bind(emails),
      listEmails: emails.listEmails.bind(emails),
      rescheduleEmail: emails.rescheduleEmail.bind(emails),
      findEmailByProviderMessageId: emails.findEmailByProviderMessageId.bind(emails),
      claimDueEmails: emails.claimDueEmails.bind(emails),
      transitionEmail: emails.transitionEmail.bind(emails),
      scheduleRetry: emails.scheduleRetry.bind(emails),
      recordOutcomes: emails.recordOutcomes.bind(emails),
      recordOutcomesAndClaim: emails.recordOutcomesAndClaim.bind(emails),
      listEmailEvents: emails.listEmailEvents.bind(emails),
      renewEmailLeases: emails.renewEmailLeases.bind(emails),
      listEmailLeaseOwners: emails.listEmailLeaseOwners.bind(emails),
      releaseEmailLeases: emails.releaseEmailLeases.bind(emails),
      markEmailReputation: emails.markEmailReputation.bind(emails),
      domainReputation: emails.domainReputation.bind(emails),
      async insertEmails(records: EmailRecord[], completion?: Parameters<typeof emails.insertEmails>[1]) {
        writes.push(records.length);
        if (records.length > 1 && failures > 0) {
          failures -= 1;
          throw new Error("database is locked");
        }
        if (records.some((r) => refuse?.(r)))
          throw new FlagpostError("conflict", "An email with that id already exists");
        return emails.insertEmails(records, completion);
      },
    },
  };
  return { storage: counted, writes };
}

describe("send: group commit", () => {
  it("stores concurrent sends in one write, and each call answers once its email is stored", async () => {
    const { storage, writes } = countingStorage();
    const fp = createFlagpost({ storage, logger: silentLogger });
    await fp.ready();
    const sent = await Promise.all(Array.from({ length: 8 }, (_, i) => fp.emails.send(request(i))));
    expect(writes).toEqual([8]);
    for (const s of sent) expect((await fp.emails.get(s.id)).status).toBe("queued");
    // One at a time, each is its own write.
    await fp.emails.send(request(8));
    await fp.emails.send(request(9));
    expect(writes).toEqual([8, 1, 1]);
    await fp.close();
  });

  it("sends that arrive while a write runs share the next one", async () => {
    const { storage, writes } = countingStorage();
    const fp = createFlagpost({ storage, logger: silentLogger });
    await fp.ready();
    const first = fp.emails.send(request(0));
    await new Promise((resolve) => setImmediate(resolve)); // the first write has started
    const more = Array.from({ length: 5 }, (_, i) => fp.emails.send(request(i + 1)));
    await Promise.all([first, ...more]);
    expect(writes).toEqual([1, 5]);
    await fp.close();
  });

  it("writes a group's emails one by one when the group's write fails, so each call gets its own answer", async () => {
    let refusedSubject = "";
    const { storage, writes } = countingStorage(1, (r) => r.content.subject === refusedSubject);
    const fp = createFlagpost({ storage, logger: silentLogger });
    await fp.ready();
    refusedSubject = request(2).subject;
    const results = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => fp.emails.send(request(i))));
    expect(writes).toEqual([4, 1, 1, 1, 1]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(((results[2] as PromiseRejectedResult).reason as FlagpostError).code).toBe("conflict");
    for (const r of results)
      if (r.status === "fulfilled") expect((await fp.emails.get(r.value.id)).status).toBe("queued");
    await fp.close();
  });
});
