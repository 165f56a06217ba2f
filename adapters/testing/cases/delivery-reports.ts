import { describe, expect, it } from "vitest";
import type { DeliveryReport } from "../../../src/emails/index.js";
import { FlagpostError } from "../../../src/errors.js";
import type { UnmatchedReportRecord } from "../../../src/ports/storage/delivery-reports.js";
import type { StorageHarness } from "../harness.js";
import { sentOutcome } from "./email-fixtures.js";
import { useStorage } from "./use-storage.js";
import { deliveriesOf, domainEvent, email, sortedId, subscribedWebhook, T0 } from "./webhook-fixtures.js";

function unmatched(report: Partial<DeliveryReport> = {}): UnmatchedReportRecord {
  return {
    id: sortedId(7),
    receivedAt: T0,
    reason: "no email matched",
    report: { type: "bounced", source: "dsn", recipient: "ann@example.com", messageId: "<x@y>", ...report },
  };
}

/** What applying delivery reports needs of storage: unmatched reports, provider ids, the newest event. */
export function deliveryReportCases(harness: StorageHarness): void {
  describe("delivery reports", () => {
    const storage = useStorage(harness);

    it("stores unmatched reports as given and lists them newest first", async () => {
      const a = unmatched({ bounce: { type: "Permanent", subType: "General", message: "550 5.1.1 ✓ unknown" } });
      const b = unmatched({ type: "complained", source: "arf", feedbackType: "abuse" });
      await storage().deliveryReports.recordUnmatchedReports([a, b]);
      expect(await storage().deliveryReports.listUnmatchedReports({ limit: 10 })).toEqual([b, a]);
      expect(await storage().deliveryReports.listUnmatchedReports({ limit: 1, after: b.id })).toEqual([a]);
      const error = await storage()
        .deliveryReports.recordUnmatchedReports([unmatched(), a])
        .catch((e: unknown) => e);
      expect((error as FlagpostError).code).toBe("conflict");
      expect(await storage().deliveryReports.listUnmatchedReports({ limit: 10 })).toHaveLength(2);
    });

    it("stores a provider message id with a transition and finds the email by it", async () => {
      const [e, other] = [email(), email()];
      await storage().emails.insertEmails([e, other]);
      const claimed = await storage().emails.claimDueEmails(T0, 2, 60_000, "w");
      expect(claimed).toHaveLength(2);
      const applied = await storage().emails.recordOutcomes([
        sentOutcome(e.id, T0 + 1, { providerMessageId: "0100018f-provider-a" }),
        sentOutcome(other.id, T0 + 2, { providerMessageId: "0100018f-provider-b" }),
      ]);
      expect(applied).toEqual([true, true]);
      expect((await storage().emails.findEmailByProviderMessageId("0100018f-provider-a"))?.id).toBe(e.id);
      expect(await storage().emails.findEmailByProviderMessageId("0100018f-provider-b")).toMatchObject({
        id: other.id,
        providerMessageId: "0100018f-provider-b",
        lastEvent: "sent",
      });
      expect(await storage().emails.findEmailByProviderMessageId("0100018f-provider-c")).toBeUndefined();
    });

    it("keeps the newest event's type, stores a failure reason, and may keep the status", async () => {
      const e = email();
      await storage().emails.insertEmails([e]);
      expect((await storage().emails.getEmail(e.id))!.lastEvent).toBeUndefined();
      const kept = await storage().emails.transitionEmail(e.id, {
        from: ["queued"],
        to: "queued",
        event: { type: "delivery_delayed", at: T0 + 1, detail: { source: "dsn" } },
      });
      expect(kept).toMatchObject({ status: "queued", lastEvent: "delivery_delayed" });
      const failed = await storage().emails.transitionEmail(e.id, {
        from: ["queued"],
        to: "failed",
        failureReason: "suppressed",
        event: { type: "suppressed", at: T0 + 2 },
      });
      expect(failed).toMatchObject({ status: "failed", lastEvent: "suppressed", failureReason: "suppressed" });
      expect(await storage().emails.getEmail(e.id)).toEqual(failed);
      expect((await storage().emails.listEmailEvents(e.id)).map((x) => x.type)).toEqual([
        "queued",
        "delivery_delayed",
        "suppressed",
      ]);
    });

    it("gives a scheduled email a scheduled first event and stores the insert's domain events", async () => {
      const hook = await subscribedWebhook(storage(), ["email.scheduled"]);
      const e = email({ scheduledAt: T0 + 60_000, nextAttemptAt: T0 + 60_000 });
      await storage().emails.insertEmails([e], undefined, [domainEvent("email.scheduled", { email_id: e.id })]);
      expect(await storage().emails.listEmailEvents(e.id)).toEqual([
        { emailId: e.id, seq: 1, type: "scheduled", at: e.createdAt },
      ]);
      expect(await deliveriesOf(storage(), [hook])).toEqual(["0:email.scheduled"]);
    });

    it("applies a transition only while nobody holds the email when asked to", async () => {
      const e = email({ scheduledAt: T0, nextAttemptAt: T0 });
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(T0, 1, 60_000, "w");
      const cancel = (at: number) =>
        storage().emails.transitionEmail(e.id, {
          from: ["queued"],
          to: "canceled",
          unleasedAt: at,
          event: { type: "canceled", at },
        });
      expect(await cancel(T0 + 1000)).toBeUndefined();
      expect((await storage().emails.getEmail(e.id))!.status).toBe("queued");
      // Once the lease has ended (its worker died), the email is nobody's.
      expect(await cancel(T0 + 60_000)).toMatchObject({ status: "canceled", lastEvent: "canceled" });
      expect((await storage().emails.getEmail(e.id))!.leaseOwner).toBeUndefined();
    });
  });
}
