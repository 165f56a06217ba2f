import { describe, expect, it } from "vitest";
import type { StorageHarness } from "../harness.js";
import { deliveredFirst, email, id, LEASE, T0 } from "./email-fixtures.js";
import { useStorage } from "./use-storage.js";

/** Transitions, retries and grouped outcomes of claimed emails: what the outbox worker writes. */
export function emailOutcomeCases(harness: StorageHarness): void {
  describe("emails: outcomes", () => {
    const storage = useStorage(harness);

    it("applies a transition with its event, sets timestamps once and releases the lease", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(T0, 1, LEASE, "w");
      const sent = await storage().emails.transitionEmail(e.id, {
        from: ["queued"],
        leaseOwner: "w",
        to: "sent",
        sentAt: T0 + 10,
        event: { type: "sent", at: T0 + 10, detail: { accepted: ["user1@example.com"], response: "250 OK" } },
      });
      expect(sent).toEqual({ ...e, status: "sent", attempts: 1, sentAt: T0 + 10, lastEvent: "sent" });
      const delivered = await storage().emails.transitionEmail(e.id, {
        from: ["sent"],
        to: "delivered",
        sentAt: T0 + 99, // ignored: set once
        deliveredAt: T0 + 20,
        event: { type: "delivered", at: T0 + 20 },
      });
      expect(delivered).toMatchObject({ status: "delivered", sentAt: T0 + 10, deliveredAt: T0 + 20 });
      expect(await storage().emails.listEmailEvents(e.id)).toEqual([
        { emailId: e.id, seq: 1, type: "queued", at: T0 },
        {
          emailId: e.id,
          seq: 2,
          type: "sent",
          at: T0 + 10,
          detail: { accepted: ["user1@example.com"], response: "250 OK" },
        },
        { emailId: e.id, seq: 3, type: "delivered", at: T0 + 20 },
      ]);
    });

    it("refuses a transition from the wrong status or by a worker that does not hold it, and changes nothing", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(T0, 1, LEASE, "w");
      const before = await storage().emails.getEmail(e.id);
      expect(
        await storage().emails.transitionEmail(e.id, {
          from: ["sent"],
          to: "delivered",
          deliveredAt: T0,
          event: { type: "delivered", at: T0 },
        }),
      ).toBeUndefined();
      expect(
        await storage().emails.transitionEmail(e.id, {
          from: ["queued"],
          leaseOwner: "intruder",
          to: "sent",
          sentAt: T0,
          event: { type: "sent", at: T0 },
        }),
      ).toBeUndefined();
      expect(
        await storage().emails.transitionEmail(id(77), {
          from: ["queued"],
          to: "failed",
          event: { type: "failed", at: T0 },
        }),
      ).toBeUndefined();
      expect(await storage().emails.getEmail(e.id)).toEqual(before);
      expect((await storage().emails.listEmailEvents(e.id)).map((x) => x.type)).toEqual(["queued"]);
    });

    it("lets exactly one of two racing transitions from the same status win", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      const results = await Promise.all([
        storage().emails.transitionEmail(e.id, {
          from: ["queued"],
          to: "failed",
          event: { type: "failed", at: T0 + 1 },
        }),
        storage().emails.transitionEmail(e.id, {
          from: ["queued"],
          to: "bounced",
          event: { type: "bounced", at: T0 + 1 },
        }),
      ]);
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      const events = await storage().emails.listEmailEvents(e.id);
      expect(events.map((x) => x.seq)).toEqual([1, 2]);
      expect(events[1]!.type).toBe((await storage().emails.getEmail(e.id))!.status);
    });

    it("schedules a retry: releases the lease, sets the next attempt and the error, records the event", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(T0, 1, LEASE, "w");
      expect(
        await storage().emails.scheduleRetry(e.id, {
          leaseOwner: "other",
          nextAttemptAt: T0 + 5000,
          lastError: "x",
          event: { type: "delivery_delayed", at: T0 },
        }),
      ).toBeUndefined();
      const retried = await storage().emails.scheduleRetry(e.id, {
        leaseOwner: "w",
        nextAttemptAt: T0 + 5000,
        lastError: "451 try later",
        event: { type: "delivery_delayed", at: T0 + 1, detail: { code: 451 } },
      });
      expect(retried).toEqual({
        ...e,
        attempts: 1,
        nextAttemptAt: T0 + 5000,
        lastError: "451 try later",
        lastEvent: "delivery_delayed",
      });
      expect(await storage().emails.claimDueEmails(T0 + 4999, 1, LEASE, "w")).toEqual([]);
      expect(await storage().emails.claimDueEmails(T0 + 5000, 1, LEASE, "w")).toHaveLength(1);
      expect((await storage().emails.listEmailEvents(e.id)).at(-1)).toEqual({
        emailId: e.id,
        seq: 2,
        type: "delivery_delayed",
        at: T0 + 1,
        detail: { code: 451 },
      });
    });

    it("refuses to schedule a retry of an email that is no longer queued", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(T0, 1, LEASE, "w");
      await storage().emails.transitionEmail(e.id, deliveredFirst(T0));
      expect(
        await storage().emails.scheduleRetry(e.id, {
          leaseOwner: "w",
          nextAttemptAt: T0,
          lastError: "x",
          event: { type: "delivery_delayed", at: T0 },
        }),
      ).toBeUndefined();
    });
  });
}
