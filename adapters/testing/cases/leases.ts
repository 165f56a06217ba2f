import { describe, expect, it } from "vitest";
import type { EmailRecord } from "../../../src/ports/storage/emails.js";
import type { StorageHarness } from "../harness.js";
import { claim as idempotencyClaim } from "./idempotency.js";
import { useStorage } from "./use-storage.js";

// Short leases kept alive by a heartbeat, a restarted process freeing its dead predecessor's
// leases at once, and idempotency claims kept alive while their request runs.

const T0 = Date.parse("2026-07-01T08:00:00.000Z");
const LEASE = 30_000;
let counter = 0;

function email(): EmailRecord {
  const id = `0198${String(++counter).padStart(4, "0")}-0000-7000-8000-000000000000`;
  return {
    id,
    content: { from: "a@example.com", to: ["b@example.com"], subject: "s", text: "t" },
    status: "queued",
    messageId: `<${id}@example.com>`,
    createdAt: T0,
    attempts: 0,
    nextAttemptAt: T0,
  };
}

export function leaseCases(harness: StorageHarness): void {
  describe("leases", () => {
    const storage = useStorage(harness);

    it("renews only the leases the owner still holds, and a renewed email is not claimable until the new end", async () => {
      const [a, b, c] = [email(), email(), email()];
      await storage().emails.insertEmails([a, b, c]);
      await storage().emails.claimDueEmails(T0, 2, LEASE, "w1"); // a, b
      await storage().emails.claimDueEmails(T0, 1, LEASE, "w2"); // c
      await storage().emails.transitionEmail(b.id, {
        from: ["queued"],
        leaseOwner: "w1",
        to: "sent",
        sentAt: T0 + 1,
        event: { type: "sent", at: T0 + 1 },
      });

      const renewed = await storage().emails.renewEmailLeases(
        [a.id, b.id, c.id, "0198ffff-0000-7000-8000-000000000000"],
        "w1",
        T0 + 50_000,
      );
      expect(renewed).toEqual([a.id]); // b finished (no lease), c is w2's, the last does not exist
      expect(await storage().emails.getEmail(a.id)).toMatchObject({
        leaseOwner: "w1",
        leaseUntil: T0 + 50_000,
        attempts: 1,
      });
      expect(await storage().emails.getEmail(c.id)).toMatchObject({ leaseOwner: "w2", leaseUntil: T0 + LEASE });
      // Past the first lease, only c (not renewed) is due again.
      expect((await storage().emails.claimDueEmails(T0 + LEASE, 10, LEASE, "w3")).map((e) => e.id)).toEqual([c.id]);
      expect(await storage().emails.claimDueEmails(T0 + 49_999, 10, LEASE, "w3")).toEqual([]);
      expect(await storage().emails.renewEmailLeases([], "w1", T0)).toEqual([]);
    });

    it("does not renew a lease that ended and was taken over", async () => {
      const a = email();
      await storage().emails.insertEmails([a]);
      await storage().emails.claimDueEmails(T0, 1, LEASE, "slow");
      await storage().emails.claimDueEmails(T0 + LEASE, 1, LEASE, "other");
      expect(await storage().emails.renewEmailLeases([a.id], "slow", T0 + LEASE + 10_000)).toEqual([]);
      expect(await storage().emails.getEmail(a.id)).toMatchObject({
        leaseOwner: "other",
        leaseUntil: T0 + 2 * LEASE,
        attempts: 2,
      });
    });

    it("lists the owners of unexpired leases and frees a dead owner's leases at once, keeping attempts", async () => {
      const [a, b, c, d] = [email(), email(), email(), email()];
      await storage().emails.insertEmails([a, b, c, d]);
      await storage().emails.claimDueEmails(T0, 2, LEASE, "host:41:dead"); // a, b
      await storage().emails.claimDueEmails(T0, 1, LEASE, "host:42:alive"); // c
      await storage().emails.claimDueEmails(T0 - LEASE, 1, LEASE, "host:43:expired"); // d, lease already over at T0
      expect((await storage().emails.listEmailLeaseOwners(T0)).sort()).toEqual(["host:41:dead", "host:42:alive"]);

      expect(await storage().emails.releaseEmailLeases(["host:41:dead", "nobody"])).toBe(2);
      expect(await storage().emails.getEmail(a.id)).toMatchObject({ status: "queued", attempts: 1 });
      expect((await storage().emails.getEmail(a.id))?.leaseOwner).toBeUndefined();
      expect((await storage().emails.getEmail(a.id))?.leaseUntil).toBeUndefined();
      const again = await storage().emails.claimDueEmails(T0 + 1, 10, LEASE, "host:41:restarted");
      expect(again.map((e) => e.id).sort()).toEqual([a.id, b.id, d.id].sort());
      expect(again.find((e) => e.id === a.id)?.attempts).toBe(2);
      expect(await storage().emails.getEmail(c.id)).toMatchObject({ leaseOwner: "host:42:alive" });
      expect(await storage().emails.releaseEmailLeases([])).toBe(0);
    });

    it("never frees the lease of an email that is no longer queued", async () => {
      const a = email();
      await storage().emails.insertEmails([a]);
      await storage().emails.claimDueEmails(T0, 1, LEASE, "dead");
      await storage().emails.transitionEmail(a.id, {
        from: ["queued"],
        to: "failed",
        event: { type: "failed", at: T0 },
      });
      expect(await storage().emails.releaseEmailLeases(["dead"])).toBe(0);
      expect(await storage().emails.getEmail(a.id)).toMatchObject({ status: "failed" });
    });

    it("claims an email larger than maxContentBytes with its headline and size only, a smaller one whole", async () => {
      const small = email();
      const large = email();
      large.content = {
        ...large.content,
        cc: ["c@example.com"],
        text: "x".repeat(4_000),
        attachments: [{ filename: "a.bin", content: "QUJD".repeat(500) }],
      };
      await storage().emails.insertEmails([small, large]);
      const claimed = await storage().emails.claimDueEmails(T0, 10, LEASE, "w", { maxContentBytes: 1_000 });
      const byId = new Map(claimed.map((c) => [c.id, c]));
      expect(byId.get(small.id)).toEqual({ ...small, attempts: 1, leaseOwner: "w", leaseUntil: T0 + LEASE });
      const headline = byId.get(large.id)!;
      expect(headline.content).toEqual({
        from: "a@example.com",
        to: ["b@example.com"],
        cc: ["c@example.com"],
        subject: "s",
      });
      expect(headline.omittedContentBytes).toBe(JSON.stringify(large.content).length);
      expect(headline).toMatchObject({ attempts: 1, leaseOwner: "w", leaseUntil: T0 + LEASE });
      // The whole email is still there to read.
      expect((await storage().emails.getEmail(large.id))!.content).toEqual(large.content);
    });

    it("extends a pending idempotency claim while its request runs, and only a pending one", async () => {
      const claim = idempotencyClaim({ scope: "k", key: "i", lockedUntil: T0 + 10_000 }, T0);
      expect(await storage().idempotency.begin(claim)).toEqual({ state: "started" });
      expect(await storage().idempotency.extend("k", "i", claim.fingerprint, T0 + 20_000)).toBe(true);
      // Past the first lock but within the extended one: still in progress.
      expect(await storage().idempotency.begin({ ...claim, now: T0 + 15_000, lockedUntil: T0 + 25_000 })).toEqual({
        state: "in_progress",
      });
      // Once the extension lapses (its process died), a retry takes the key over.
      expect(await storage().idempotency.begin({ ...claim, now: T0 + 20_000, lockedUntil: T0 + 30_000 })).toEqual({
        state: "started",
      });
      expect(await storage().idempotency.extend("k", "i", "0".repeat(64), T0 + 90_000)).toBe(false);
      await storage().idempotency.complete({ scope: "k", key: "i", response: { ok: 1 } });
      expect(await storage().idempotency.extend("k", "i", claim.fingerprint, T0 + 90_000)).toBe(false);
      expect(await storage().idempotency.extend("k", "absent", claim.fingerprint, T0 + 90_000)).toBe(false);
      expect(await storage().idempotency.begin({ ...claim, now: T0 + 21_000 })).toEqual({
        state: "replay",
        response: { ok: 1 },
      });
    });
  });
}
