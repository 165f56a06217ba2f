import { describe, expect, it } from "vitest";
import { FlagpostError } from "../../../src/errors.js";
import type { IdempotencyClaim } from "../../../src/ports/storage/idempotency.js";
import { describeCapability, type StorageHarness } from "../harness.js";
import { useReopenedStorage, useSharedStorages, useStorage } from "./use-storage.js";
import { email, id, LEASE, T0 } from "./email-fixtures.js";
import { emailOutcomeCases } from "./email-outcomes.js";
import { emailRecordedBatchCases } from "./email-recorded-batch.js";
import { emailOutcomesClaimCases } from "./email-outcomes-claim.js";

/** The idempotency key an insert completes (scope "k", key "i"), pending for a minute from T0. */
const CLAIM: IdempotencyClaim = {
  scope: "k",
  key: "i",
  fingerprint: "f",
  now: T0,
  lockedUntil: T0 + 60_000,
  expiresAt: T0 + 86_400_000,
};

export function emailCases(harness: StorageHarness): void {
  describe("emails", () => {
    const storage = useStorage(harness);

    it("stores emails with their queued event and returns them unchanged", async () => {
      const full = email(1, {
        content: {
          from: '"Ann, Sales" <ann@example.com>',
          to: ["a@example.com", "B <b@example.com>"],
          cc: ["c@example.com"],
          bcc: ["d@example.com"],
          replyTo: ["r@example.com"],
          subject: "Grüße — ✓ 三",
          html: "<p>hi</p>",
          text: "hi",
          headers: { "X-Campaign": "spring" },
          tags: [{ name: "kind", value: "welcome" }],
          attachments: [
            { filename: "a.txt", content: Buffer.from("hello").toString("base64"), contentType: "text/plain" },
          ],
        },
        scheduledAt: T0 + 5000,
        nextAttemptAt: T0 + 5000,
      });
      await storage().emails.insertEmails([full, email(2)]);
      expect(await storage().emails.getEmail(full.id)).toEqual(full);
      expect(await storage().emails.listEmailEvents(full.id)).toEqual([
        { emailId: full.id, seq: 1, type: "scheduled", at: full.createdAt },
      ]);
      expect(await storage().emails.getEmail(id(99))).toBeUndefined();
      expect(await storage().emails.listEmailEvents(id(99))).toEqual([]);
    });

    it("returns fresh copies", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      e.content.to.push("mutated@example.com");
      const read = (await storage().emails.getEmail(e.id))!;
      expect(read.content.to).toEqual(["user1@example.com"]);
      read.content.to.push("again@example.com");
      expect((await storage().emails.getEmail(e.id))!.content.to).toEqual(["user1@example.com"]);
    });

    it("stores a batch all or nothing: a duplicate id stores none of it", async () => {
      const first = email(1);
      await storage().emails.insertEmails([first]);
      const fresh = email(2);
      const error = await storage()
        .emails.insertEmails([fresh, { ...email(3), id: first.id }])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlagpostError);
      expect((error as FlagpostError).code).toBe("conflict");
      expect(await storage().emails.getEmail(fresh.id)).toBeUndefined();
      expect(await storage().emails.listEmailEvents(fresh.id)).toEqual([]);
    });

    it("completes an idempotency claim with the same write", async () => {
      expect(await storage().idempotency.begin(CLAIM)).toEqual({ state: "started" });
      const e = email(1);
      await storage().emails.insertEmails([e], { scope: "k", key: "i", response: { id: e.id } });
      expect(await storage().idempotency.begin({ ...CLAIM, now: T0 + 1 })).toEqual({
        state: "replay",
        response: { id: e.id },
      });
    });

    it("leaves the idempotency claim pending when the insert fails", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().idempotency.begin(CLAIM);
      await expect(storage().emails.insertEmails([e], { scope: "k", key: "i", response: "never" })).rejects.toThrow();
      expect(await storage().idempotency.begin({ ...CLAIM, now: T0 + 1 })).toEqual({ state: "in_progress" });
    });

    it("claims due emails, longest-due first, up to the limit, with a lease and one more attempt", async () => {
      const late = email(1, { nextAttemptAt: T0 - 1000 });
      const early = email(2, { nextAttemptAt: T0 - 5000 });
      const now = email(3, { nextAttemptAt: T0 });
      const future = email(4, { nextAttemptAt: T0 + 1 });
      await storage().emails.insertEmails([late, early, now, future]);

      const first = await storage().emails.claimDueEmails(T0, 2, LEASE, "w1");
      expect(first.map((e) => e.id)).toEqual([early.id, late.id]);
      expect(first[0]).toEqual({ ...early, attempts: 1, leaseOwner: "w1", leaseUntil: T0 + LEASE });
      expect(await storage().emails.getEmail(early.id)).toEqual(first[0]);

      const second = await storage().emails.claimDueEmails(T0, 10, LEASE, "w2");
      expect(second.map((e) => e.id)).toEqual([now.id]);
      expect(await storage().emails.claimDueEmails(T0, 10, LEASE, "w3")).toEqual([]);
      expect((await storage().emails.claimDueEmails(T0 + 1, 10, LEASE, "w3")).map((e) => e.id)).toEqual([future.id]);
    });

    it("holds a scheduled email until its time", async () => {
      const scheduled = email(1, { scheduledAt: T0 + 3_600_000, nextAttemptAt: T0 + 3_600_000 });
      await storage().emails.insertEmails([scheduled]);
      expect(await storage().emails.claimDueEmails(T0 + 3_599_999, 10, LEASE, "w")).toEqual([]);
      expect((await storage().emails.claimDueEmails(T0 + 3_600_000, 10, LEASE, "w")).map((e) => e.id)).toEqual([
        scheduled.id,
      ]);
    });

    it("makes an email claimable again once its lease ended, and not before", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(T0, 1, LEASE, "crashed");
      expect(await storage().emails.claimDueEmails(T0 + LEASE - 1, 1, LEASE, "other")).toEqual([]);
      const again = await storage().emails.claimDueEmails(T0 + LEASE, 1, LEASE, "other");
      expect(again).toEqual([{ ...e, attempts: 2, leaseOwner: "other", leaseUntil: T0 + 2 * LEASE }]);
      // The crashed worker's late report is refused: the email is no longer its own.
      const late = await storage().emails.transitionEmail(e.id, {
        from: ["queued"],
        leaseOwner: "crashed",
        to: "sent",
        sentAt: T0 + LEASE + 1,
        event: { type: "sent", at: T0 + LEASE + 1 },
      });
      expect(late).toBeUndefined();
      expect(await storage().emails.getEmail(e.id)).toEqual(again[0]);
    });

    it("never claims emails that are not queued", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.transitionEmail(e.id, {
        from: ["queued"],
        to: "failed",
        event: { type: "failed", at: T0 },
      });
      expect(await storage().emails.claimDueEmails(T0 + 1, 10, LEASE, "w")).toEqual([]);
    });

    it("gives each email to exactly one of several concurrent claimers", async () => {
      const emails = Array.from({ length: 30 }, (_, i) => email(i));
      await storage().emails.insertEmails(emails);
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, w) => storage().emails.claimDueEmails(T0, 7, LEASE, `w${w}`)),
      );
      const ids = claims.flatMap((c) => c.map((e) => e.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeGreaterThan(0);
      for (const [w, claimed] of claims.entries()) {
        for (const e of claimed) expect((await storage().emails.getEmail(e.id))?.leaseOwner).toBe(`w${w}`);
      }
      // Claims may come back short, never overlapping: SKIP LOCKED passes over rows another claim
      // has locked, and InnoDB may lock every row it scanned when a small table is read without
      // the index. The next claim takes the rest.
      const rest = await storage().emails.claimDueEmails(T0, 100, LEASE, "late");
      expect(ids.length + rest.length).toBe(30);
      expect(new Set([...ids, ...rest.map((e) => e.id)]).size).toBe(30);
    });
  });

  emailOutcomeCases(harness);
  emailRecordedBatchCases(harness);
  emailOutcomesClaimCases(harness);

  emailDurabilityCases(harness);
  emailSharedCases(harness);
}

function emailDurabilityCases(harness: StorageHarness): void {
  describeCapability(harness, "durable", "emails: durability", "reopen", () => {
    const durable = useReopenedStorage(harness);

    it("keeps accepted emails, their leases and their history across close and reopen", async () => {
      let current = await durable.create();
      const e = email(1);
      await current.emails.insertEmails([e, email(2)]);
      const [claimed] = await current.emails.claimDueEmails(T0, 1, LEASE, "w");
      current = await durable.reopen(current);
      expect(await current.emails.getEmail(e.id)).toEqual(claimed);
      expect(await current.emails.claimDueEmails(T0, 10, LEASE, "x")).toHaveLength(1);
      expect((await current.emails.listEmailEvents(e.id)).map((x) => x.type)).toEqual(["queued"]);
    });
  });
}

function emailSharedCases(harness: StorageHarness): void {
  describeCapability(harness, "shared", "emails: shared by several processes", "openShared", () => {
    const openShared = useSharedStorages(harness);

    it("gives each email to exactly one of several processes claiming at once", async () => {
      const storages = await openShared(3);
      for (const s of storages) await s.migrate();
      const emails = Array.from({ length: 40 }, (_, i) => email(i));
      await storages[0]!.emails.insertEmails(emails);
      const claims = await Promise.all(
        storages.flatMap((s, p) => [0, 1].map((w) => s.emails.claimDueEmails(T0, 8, LEASE, `p${p}w${w}`))),
      );
      const ids = claims.flatMap((c) => c.map((e) => e.id));
      expect(new Set(ids).size).toBe(ids.length);
      // As above: claims may come back short, never overlapping.
      expect(ids.length).toBeGreaterThan(0);
      const rest = await storages[1]!.emails.claimDueEmails(T0, 100, LEASE, "late");
      expect(ids.length + rest.length).toBe(40);
    });
  });
}
