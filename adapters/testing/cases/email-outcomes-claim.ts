import { afterEach, describe, expect, it } from "vitest";
import type { EmailOutcomeWrite } from "../../../src/ports/storage/emails.js";
import { describeCapability, type StorageHarness } from "../harness.js";
import { email, LEASE, retryOutcome, T0 } from "./email-fixtures.js";
import { useStorage } from "./use-storage.js";

const sent = (id: string, owner = "w"): EmailOutcomeWrite => ({
  id,
  transition: {
    from: ["queued"],
    leaseOwner: owner,
    to: "sent",
    sentAt: T0 + 5,
    event: { type: "sent", at: T0 + 5 },
  },
});

/** A worker's outcomes and its next claim in one write (recordOutcomesAndClaim) */
export function emailOutcomesClaimCases(harness: StorageHarness): void {
  describe("emails: outcomes and the next claim in one write", () => {
    const storage = useStorage(harness);

    it("records the outcomes, then leases the due emails nobody holds, longest-due first, up to the limit", async () => {
      const emails = storage().emails;
      const [a, b, c, d, e, f] = [
        email(1),
        email(2),
        email(3),
        email(4, { nextAttemptAt: T0 + 2 }),
        email(5, { nextAttemptAt: T0 + 1 }),
        email(6, { nextAttemptAt: T0 + 60_000 }),
      ];
      await emails.insertEmails([a!, b!, c!, d!, e!, f!]);
      await emails.claimDueEmails(T0, 2, LEASE, "w"); // a, b
      await emails.claimDueEmails(T0, 1, LEASE, "x"); // c
      const retry = retryOutcome(b!.id, T0 + 5, T0 + 5_000);
      const now = T0 + 10;
      const result = await emails.recordOutcomesAndClaim([sent(a!.id), retry, sent(c!.id)], {
        now: now,
        limit: 1,
        leaseMs: LEASE,
        owner: "w",
      });
      // c is x's: its outcome does not apply and it is not claimed; a is sent, b waits for its retry.
      expect(result.applied).toEqual([true, true, false]);
      expect(result.claimed.map((r) => r.id)).toEqual([e!.id]);
      expect(result.claimed[0]).toEqual({ ...e!, attempts: 1, leaseOwner: "w", leaseUntil: now + LEASE });
      expect(await emails.getEmail(e!.id)).toEqual(result.claimed[0]);
      expect(await emails.getEmail(a!.id)).toMatchObject({ status: "sent", attempts: 1 });
      expect((await emails.getEmail(a!.id))!.leaseOwner).toBeUndefined();
      expect(await emails.getEmail(c!.id)).toMatchObject({ status: "queued", leaseOwner: "x" });
      const next = await emails.recordOutcomesAndClaim([sent(e!.id)], {
        now: now,
        limit: 10,
        leaseMs: LEASE,
        owner: "w",
        maxContentBytes: 1_000,
      });
      expect(next.applied).toEqual([true]);
      expect(next.claimed.map((r) => [r.id, r.attempts, r.leaseOwner])).toEqual([[d!.id, 1, "w"]]);
      expect(await emails.recordOutcomesAndClaim([], { now: now, limit: 10, leaseMs: LEASE, owner: "w" })).toEqual({
        applied: [],
        claimed: [],
      });
    });

    it("applies nothing and claims nothing when the write fails", async () => {
      const emails = storage().emails;
      const [a, b] = [email(1), email(2)];
      await emails.insertEmails([a!, b!]);
      await emails.claimDueEmails(T0, 1, LEASE, "w"); // a
      const before = await emails.getEmail(a!.id);
      // A claim time the storage cannot use fails the write after the outcome was written in it.
      await expect(
        emails.recordOutcomesAndClaim([sent(a!.id)], { now: Number.NaN, limit: 10, leaseMs: LEASE, owner: "w" }),
      ).rejects.toThrow();
      // As after a crash before the commit: a is still w's to send again (same Message-ID), b still due.
      expect(await emails.getEmail(a!.id)).toEqual(before);
      expect((await emails.listEmailEvents(a!.id)).map((x) => x.type)).toEqual(["queued"]);
      expect(await emails.getEmail(b!.id)).toEqual(b);
      expect((await emails.claimDueEmails(T0 + LEASE, 10, LEASE, "v")).map((r) => r.id)).toEqual([a!.id, b!.id]);
    });
  });

  describeCapability(
    harness,
    "shared",
    "emails: outcomes and claims in one write, several processes",
    "openShared",
    () => {
      let dispose: (() => Promise<void>) | undefined;
      afterEach(async () => {
        await dispose?.();
        dispose = undefined;
      });

      it("gives each due email to exactly one of several processes recording and claiming at once", async () => {
        const shared = await harness.openShared!(3);
        dispose = shared.dispose;
        for (const s of shared.storages) await s.migrate();
        const emails = Array.from({ length: 30 }, (_, i) => email(i));
        await shared.storages[0]!.emails.insertEmails(emails);
        const first = await Promise.all(shared.storages.map((s, p) => s.emails.claimDueEmails(T0, 2, LEASE, `p${p}`)));
        // Each write commits or fails whole (one SQLite connection can find another's lock held).
        const writes = await Promise.allSettled(
          shared.storages.map((s, p) =>
            s.emails.recordOutcomesAndClaim(
              first[p]!.map((r) => sent(r.id, `p${p}`)),
              { now: T0, limit: 6, leaseMs: LEASE, owner: `p${p}` },
            ),
          ),
        );
        const done = writes.flatMap((w) => (w.status === "fulfilled" ? [w.value] : []));
        expect(done.length).toBeGreaterThan(0);
        expect(done.flatMap((c) => c.applied).every(Boolean)).toBe(true);
        const ids = [...first.flat(), ...done.flatMap((c) => c.claimed)].map((r) => r.id);
        expect(new Set(ids).size).toBe(ids.length);
        // A failed write's emails stay leased to their process: the rest are due.
        const rest = await shared.storages[1]!.emails.claimDueEmails(T0, 100, LEASE, "late");
        expect(new Set([...ids, ...rest.map((r) => r.id)]).size).toBe(ids.length + rest.length);
        expect(ids.length + rest.length).toBe(30);
      });
    },
  );
}
