import { describe, expect, it } from "vitest";
import type { StorageHarness } from "../harness.js";
import { deliveredFirst, email, id, LEASE, retryOutcome, sentOutcome, T0 } from "./email-fixtures.js";
import { useStorage } from "./use-storage.js";

/** Several outcomes recorded in one write (the worker's group commit), each under its own conditions. */
export function emailRecordedBatchCases(harness: StorageHarness): void {
  describe("emails: outcomes recorded together", () => {
    const storage = useStorage(harness);

    it("records several outcomes in one write, each under its own conditions, answering in the order given whether it applied", async () => {
      const [a, b, c, d] = [email(1), email(2), email(3), email(4)];
      await storage().emails.insertEmails([a!, b!, c!, d!]);
      await storage().emails.claimDueEmails(T0, 3, LEASE, "w"); // a, b, c
      await storage().emails.claimDueEmails(T0, 1, LEASE, "x"); // d
      const beforeC = await storage().emails.getEmail(c!.id);
      const beforeD = await storage().emails.getEmail(d!.id);
      const results = await storage().emails.recordOutcomes([
        sentOutcome(d!.id, T0 + 5),
        retryOutcome(b!.id, T0 + 5, T0 + 5000),
        sentOutcome(id(99), T0 + 5),
        {
          id: c!.id,
          transition: {
            from: ["sent"],
            to: "delivered",
            deliveredAt: T0 + 5,
            event: { type: "delivered", at: T0 + 5 },
          },
        },
        sentOutcome(a!.id, T0 + 5, { event: { type: "sent", at: T0 + 5, detail: { response: "250 OK" } } }),
      ]);
      // d is x's, id(99) does not exist, c is not sent: only a and b apply.
      expect(results).toEqual([false, true, false, false, true]);
      expect(await storage().emails.getEmail(a!.id)).toEqual({
        ...a,
        status: "sent",
        attempts: 1,
        sentAt: T0 + 5,
        lastEvent: "sent",
      });
      expect(await storage().emails.getEmail(b!.id)).toEqual({
        ...b,
        attempts: 1,
        nextAttemptAt: T0 + 5000,
        lastError: "451 later",
        lastEvent: "delivery_delayed",
      });
      expect(await storage().emails.getEmail(c!.id)).toEqual(beforeC);
      expect(await storage().emails.getEmail(d!.id)).toEqual(beforeD);
      expect(await storage().emails.listEmailEvents(a!.id)).toEqual([
        { emailId: a!.id, seq: 1, type: "queued", at: T0 },
        { emailId: a!.id, seq: 2, type: "sent", at: T0 + 5, detail: { response: "250 OK" } },
      ]);
      expect((await storage().emails.listEmailEvents(b!.id)).map((e) => [e.seq, e.type])).toEqual([
        [1, "queued"],
        [2, "delivery_delayed"],
      ]);
      expect((await storage().emails.listEmailEvents(c!.id)).map((e) => e.type)).toEqual(["queued"]);
      expect((await storage().emails.listEmailEvents(d!.id)).map((e) => e.type)).toEqual(["queued"]);
      expect(await storage().emails.recordOutcomes([])).toEqual([]);
    });

    it("gives each email of a recorded batch its own timestamps, keeping those already set", async () => {
      const emails = [email(1), email(2), email(3)];
      await storage().emails.insertEmails(emails);
      await storage().emails.claimDueEmails(T0, 3, LEASE, "w");
      const sentAt = (n: number) => T0 + 10 * n;
      const sent = await storage().emails.recordOutcomes(emails.map((e, n) => sentOutcome(e.id, sentAt(n))));
      expect(sent).toEqual([true, true, true]);
      const delivered = await storage().emails.recordOutcomes(
        emails.map((e, n) => ({
          id: e.id,
          transition: {
            from: ["sent"],
            to: "delivered",
            sentAt: T0 + 999,
            deliveredAt: T0 + 100 + n,
            event: { type: "delivered", at: T0 + 100 + n },
          },
        })),
      );
      expect(delivered).toEqual([true, true, true]);
      for (const [n, e] of emails.entries()) {
        expect(await storage().emails.getEmail(e.id)).toEqual({
          ...e,
          status: "delivered",
          attempts: 1,
          sentAt: sentAt(n),
          deliveredAt: T0 + 100 + n,
          lastEvent: "delivered",
        });
        expect((await storage().emails.listEmailEvents(e.id)).map((x) => [x.seq, x.type, x.at])).toEqual([
          [1, "queued", T0],
          [2, "sent", sentAt(n)],
          [3, "delivered", T0 + 100 + n],
        ]);
      }
    });

    it("never lets a recorded batch move an email that a report moved on meanwhile", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(T0, 1, LEASE, "w");
      // A delivery report got there first: the worker's own outcome must not step it back.
      await storage().emails.transitionEmail(e.id, deliveredFirst(T0 + 1));
      const [applied] = await storage().emails.recordOutcomes([sentOutcome(e.id, T0 + 2)]);
      expect(applied).toBe(false);
      expect(await storage().emails.getEmail(e.id)).toMatchObject({ status: "delivered", sentAt: T0 + 1 });
    });
  });
}
