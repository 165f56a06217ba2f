import { describe, expect, it } from "vitest";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";
import { deliveriesOf, domainEvent, email, iso, subscribedWebhook, T0 } from "./webhook-fixtures.js";

/** Listing emails (headlines only, newest first) and moving a scheduled email's time. */
export function emailListCases(harness: StorageHarness): void {
  describe("email lists and schedules", () => {
    const storage = useStorage(harness);

    it("lists emails newest first with their headline and without bodies or attachments", async () => {
      const full = email({
        content: {
          from: "Acme <hello@acme.example>",
          to: ["a@example.com"],
          cc: ["c@example.com"],
          bcc: ["b@example.com"],
          replyTo: ["r@example.com"],
          subject: "Grüße ✓",
          html: "<p>big</p>",
          text: "big",
          headers: { "X-A": "1" },
          attachments: [{ filename: "a.txt", content: "aGk=" }],
        },
      });
      const others = [email(), email(), email()];
      await storage().emails.insertEmails([full, ...others]);
      const { content, ...rest } = full;
      const listed = await storage().emails.listEmails({ limit: 10 });
      expect(listed.map((e) => e.id)).toEqual([...others.map((e) => e.id).reverse(), full.id]);
      expect(listed.at(-1)).toEqual({
        ...rest,
        content: {
          from: content.from,
          to: content.to,
          cc: content.cc,
          bcc: content.bcc,
          replyTo: content.replyTo,
          subject: content.subject,
        },
      });
      const ids = (page: { id: string }[]) => page.map((e) => e.id);
      expect(ids(await storage().emails.listEmails({ limit: 2 }))).toEqual([others[2]!.id, others[1]!.id]);
      expect(ids(await storage().emails.listEmails({ limit: 2, after: others[1]!.id }))).toEqual([
        others[0]!.id,
        full.id,
      ]);
      expect(ids(await storage().emails.listEmails({ limit: 1, before: others[0]!.id }))).toEqual([others[1]!.id]);
      expect(await storage().emails.listEmails({ limit: 5, after: full.id })).toEqual([]);
    });

    it("moves a scheduled email's time while nobody holds it, with its event", async () => {
      const hook = await subscribedWebhook(storage(), ["email.scheduled"]);
      const later = email({ scheduledAt: T0 + 60_000, nextAttemptAt: T0 + 60_000 });
      const now = email();
      await storage().emails.insertEmails([later, now]);
      const change = (at: number) => ({
        scheduledAt: T0 + 120_000,
        unleasedAt: at,
        event: { type: "scheduled" as const, at, detail: { scheduled_at: iso(T0 + 120_000) } },
        events: [domainEvent("email.scheduled")],
      });
      const moved = await storage().emails.rescheduleEmail(later.id, change(T0));
      expect(moved).toEqual({
        ...later,
        scheduledAt: T0 + 120_000,
        nextAttemptAt: T0 + 120_000,
        lastEvent: "scheduled",
      });
      expect(await storage().emails.claimDueEmails(T0 + 60_000, 10, 1000, "w")).toEqual([
        expect.objectContaining({ id: now.id }),
      ]);
      // Not scheduled, or held by a worker: nothing changes.
      expect(await storage().emails.rescheduleEmail(now.id, change(T0))).toBeUndefined();
      await storage().emails.claimDueEmails(T0 + 120_000, 10, 60_000, "w");
      expect(await storage().emails.rescheduleEmail(later.id, change(T0 + 120_001))).toBeUndefined();
      expect((await storage().emails.listEmailEvents(later.id)).map((e) => e.type)).toEqual(["scheduled", "scheduled"]);
      expect(await deliveriesOf(storage(), [hook])).toEqual(["0:email.scheduled"]);
    });
  });
}
