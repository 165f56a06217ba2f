import { describe, expect, it } from "vitest";
import { changeDomain, type DomainChange } from "../../../src/domains/index.js";
import type { SendingDomainRecord } from "../../../src/ports/storage/domains.js";
import type { EpochMs } from "../../../src/ports/storage/index.js";
import type { StorageHarness } from "../harness.js";
import { email, id, LEASE, T0 } from "./email-fixtures.js";
import { useStorage } from "./use-storage.js";
import { deliveriesOf, domainEvent, sortedId, subscribedWebhook } from "./webhook-fixtures.js";

function domain(name: string): SendingDomainRecord {
  return {
    id: sortedId(9),
    name,
    region: "us-east-1",
    status: "verified",
    selector: "flagpost1",
    privateKey: "pem",
    returnPath: "bounces",
    records: [],
    openTracking: false,
    clickTracking: false,
    tls: "opportunistic",
    createdAt: T0,
    updatedAt: T0,
  };
}

/** The reputation guard's pause and the resume route's change (src/domains), as they compose them. */
const pauseAt =
  (at: EpochMs): DomainChange =>
  (before) =>
    before.pausedAt === undefined ? { ...before, pausedAt: at, updatedAt: at } : null;
const resumeAt =
  (at: EpochMs): DomainChange =>
  ({ pausedAt: _, ...before }) => ({ ...before, updatedAt: at });

/** An email from `from`, sent `sentMs` (or still queued). */
function from(n: number, address: string, sentMs?: number) {
  const base = email(n, { content: { from: address, to: [`user${n}@example.net`], subject: `s${n}`, text: "t" } });
  return sentMs === undefined ? base : { ...base, status: "sent" as const, sentAt: sentMs };
}

/** The reputation guard's storage (docs/domains.md): pause once, the claim filter, marks and the window count. */
export function domainReputationCases(harness: StorageHarness): void {
  describe("domain reputation", () => {
    const storage = useStorage(harness);

    it("pauses a domain once, storing domain.paused with that one pause, and resumes it", async () => {
      const hook = await subscribedWebhook(storage(), ["domain.paused"]);
      const d = domain("paused.example");
      await storage().domains.insertDomain(d);
      const events = (stored: SendingDomainRecord) => [domainEvent("domain.paused", { paused_at: stored.pausedAt })];
      // Racing pauses: each reads the row the one before it wrote, so one pauses and stores the event.
      const [paused, again] = await Promise.all(
        [T0 + 1000, T0 + 2000].map((at) => changeDomain(storage(), d.id, pauseAt(at), events)),
      );
      expect(again).toEqual(paused);
      expect([T0 + 1000, T0 + 2000]).toContain(paused!.pausedAt);
      expect(paused).toEqual({ ...d, pausedAt: paused!.pausedAt, updatedAt: paused!.pausedAt });
      expect(await storage().domains.getDomain(d.id)).toEqual(paused);
      expect(await deliveriesOf(storage(), [hook])).toEqual(["0:domain.paused"]);
      const resumed = await changeDomain(storage(), d.id, resumeAt(T0 + 3000));
      expect(resumed).toEqual({ ...d, updatedAt: T0 + 3000 });
      expect(await storage().domains.getDomainByName("paused.example")).toEqual(resumed);
      expect(await changeDomain(storage(), sortedId(9), pauseAt(T0), events)).toBeUndefined();
      expect(await changeDomain(storage(), sortedId(9), resumeAt(T0))).toBeUndefined();
    });

    it("claims no queued email of a paused domain until it is resumed; other domains' mail goes", async () => {
      const d = domain("held.example");
      await storage().domains.insertDomain(d);
      const held = [from(1, "Ann <ann@HELD.example>"), from(2, "news@held.example")];
      const free = [from(3, "ops@other.example"), from(4, "ops@sub.held.example")];
      await storage().emails.insertEmails([...held, ...free]);
      await changeDomain(storage(), d.id, pauseAt(T0));
      const claimed = await storage().emails.claimDueEmails(T0 + 1, 10, LEASE, "worker-a");
      expect(claimed.map((e) => e.id).sort()).toEqual(free.map((e) => e.id).sort());
      expect(await storage().emails.claimDueEmails(T0 + 2, 10, LEASE, "worker-a")).toEqual([]);
      await changeDomain(storage(), d.id, resumeAt(T0 + 3));
      const after = await storage().emails.claimDueEmails(T0 + 4, 10, LEASE, "worker-b");
      expect(after.map((e) => e.id).sort()).toEqual(held.map((e) => e.id).sort());
    });

    it("counts the last `window` sends of a domain, newest sentAt first, with their marks", async () => {
      const sent = Array.from({ length: 6 }, (_, i) => from(10 + i, `n${i}@count.example`, T0 + i * 1000));
      const unsent = from(20, "q@count.example");
      const elsewhere = from(21, "x@elsewhere.example", T0 + 9000);
      await storage().emails.insertEmails([...sent, unsent, elsewhere]);
      // The two oldest bounced, the newest complained; a bounce never replaces a complaint.
      await storage().emails.markEmailReputation(sent[0]!.id, "bounce");
      await storage().emails.markEmailReputation(sent[1]!.id, "bounce");
      await storage().emails.markEmailReputation(sent[5]!.id, "complaint");
      await storage().emails.markEmailReputation(sent[5]!.id, "bounce");
      await storage().emails.markEmailReputation(sent[4]!.id, "bounce");
      await storage().emails.markEmailReputation(sent[4]!.id, "complaint");
      await storage().emails.markEmailReputation(unsent.id, "bounce");
      await storage().emails.markEmailReputation(elsewhere.id, "complaint");
      await storage().emails.markEmailReputation(id(99), "bounce");
      const reputation = (window: number) => storage().emails.domainReputation("count.example", window);
      expect(await reputation(100)).toEqual({ sends: 6, bounces: 2, complaints: 2 });
      expect(await reputation(5)).toEqual({ sends: 5, bounces: 1, complaints: 2 });
      expect(await reputation(2)).toEqual({ sends: 2, bounces: 0, complaints: 2 });
      expect(await storage().emails.domainReputation("none.example", 10)).toEqual({
        sends: 0,
        bounces: 0,
        complaints: 0,
      });
    });
  });
}
