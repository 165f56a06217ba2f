import { describe, expect, it } from "vitest";
import { flagWrites } from "../../../src/flags/store/index.js";
import { FlagpostError } from "../../../src/errors.js";
import type { EmailOutcomeWrite, EmailTransition } from "../../../src/ports/storage/emails.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";
import { deliveriesOf, domainEvent, email, flag, subscribedWebhook, T0, webhook } from "./webhook-fixtures.js";

/** Email `id`, leased to "w", moved from queued to `to` at T0 with its event and the email.* domain event of that name. */
function settledAtT0(id: string, to: "failed" | "delivered"): EmailOutcomeWrite {
  const transition: EmailTransition = {
    from: ["queued"],
    leaseOwner: "w",
    to,
    event: { type: to, at: T0 },
    events: [domainEvent(`email.${to}`)],
  };
  return { id, transition };
}

/** The domain-event bus: writes store one delivery per subscribed enabled endpoint, in their own transaction. */
export function domainEventCases(harness: StorageHarness): void {
  describe("domain events", () => {
    const storage = useStorage(harness);

    it("stores one pending delivery per enabled endpoint subscribed to the type, due at the event's time", async () => {
      const a = webhook({ events: ["flag.created", "flag.deleted"] });
      const b = webhook({ events: ["flag.updated"] });
      const off = webhook({ events: ["flag.created"], status: "disabled" });
      const c = webhook({ events: ["email.sent", "flag.created"] });
      for (const w of [a, b, off, c]) await storage().webhooks.insertWebhook(w);
      const event = domainEvent("flag.created", { key: "f", nested: { list: [1, "two", null] } }, T0 + 5);
      await flagWrites(storage()).insert(flag("f"), undefined, [event]);

      expect(await deliveriesOf(storage(), [a, b, off, c])).toEqual(["0:flag.created", "3:flag.created"]);
      const stored = await storage().webhookDeliveries.getDelivery(a.id, event.id);
      expect(stored).toEqual({
        delivery: {
          id: expect.any(String),
          webhookId: a.id,
          eventId: event.id,
          eventType: "flag.created",
          createdAt: T0 + 5,
          status: "pending",
          attempts: 0,
          nextAttemptAt: T0 + 5,
        },
        event,
      });
      const other = await storage().webhookDeliveries.getDelivery(c.id, event.id);
      expect(other!.delivery.id).not.toBe(stored!.delivery.id);
    });

    it("stores nothing for an event no endpoint wants, and nothing when there is no endpoint", async () => {
      await flagWrites(storage()).insert(flag("alone"), undefined, [domainEvent("flag.created")]);
      const a = await subscribedWebhook(storage(), ["email.sent"]);
      await flagWrites(storage()).insert(flag("g"), undefined, [domainEvent("flag.created")]);
      expect(await deliveriesOf(storage(), [a])).toEqual([]);
    });

    it("stores no delivery when the write that carried the event fails", async () => {
      const a = webhook({
        events: ["flag.created", "flag.updated", "flag.deleted", "email.sent", "email.delivery_delayed"],
      });
      await storage().webhooks.insertWebhook(a);
      await flagWrites(storage()).insert(flag("dup"));
      const error = await flagWrites(storage())
        .insert(flag("dup"), undefined, [domainEvent("flag.created")])
        .catch((e: unknown) => e);
      expect((error as FlagpostError).code).toBe("conflict");
      let called = 0;
      const events = () => (called++, [domainEvent("flag.updated")]);
      expect(
        await flagWrites(storage()).update("missing", { enabled: true, updatedAt: T0 }, undefined, events),
      ).toBeUndefined();
      expect(await flagWrites(storage()).delete("missing", undefined, events)).toBe(false);
      expect(called).toBe(0);
      const e = email();
      await storage().emails.insertEmails([e]);
      const refused = await storage().emails.transitionEmail(e.id, {
        from: ["sent"],
        to: "delivered",
        event: { type: "delivered", at: T0 },
        events: [domainEvent("email.sent")],
      });
      expect(refused).toBeUndefined();
      const notHeld = await storage().emails.scheduleRetry(e.id, {
        leaseOwner: "nobody",
        nextAttemptAt: T0 + 1000,
        lastError: "x",
        event: { type: "delivery_delayed", at: T0 },
        events: [domainEvent("email.delivery_delayed")],
      });
      expect(notHeld).toBeUndefined();
      expect(await deliveriesOf(storage(), [a])).toEqual([]);
    });

    it("builds flag update and delete events from the flag as stored", async () => {
      const a = await subscribedWebhook(storage(), ["flag.updated", "flag.deleted"]);
      await flagWrites(storage()).insert(flag("f"));
      const seen: unknown[] = [];
      const updated = await flagWrites(storage()).update(
        "f",
        { description: "d", updatedAt: T0 + 1 },
        undefined,
        (stored) => {
          seen.push(stored);
          return [domainEvent("flag.updated", { ...stored })];
        },
      );
      expect(seen).toEqual([updated]);
      const deleted = await flagWrites(storage()).delete("f", undefined, (stored) => {
        seen.push(stored);
        return [domainEvent("flag.deleted", { ...stored })];
      });
      expect(deleted).toBe(true);
      expect(seen[1]).toEqual(updated);
      expect(await deliveriesOf(storage(), [a])).toEqual(["0:flag.deleted", "0:flag.updated"]);
      const [latest] = await storage().webhookDeliveries.listDeliveries(a.id, { limit: 1 });
      expect((await storage().webhookDeliveries.getDelivery(a.id, latest!.eventId))!.event.data).toMatchObject({
        key: "f",
        description: "d",
      });
    });

    it("stores email events with transitions, retries and grouped outcomes that apply, and only those", async () => {
      const a = await subscribedWebhook(storage(), [
        "email.sent",
        "email.delivered",
        "email.delivery_delayed",
        "email.failed",
      ]);
      const [one, two, three] = [email(), email(), email()];
      await storage().emails.insertEmails([one!, two!, three!]);
      await storage().emails.transitionEmail(one!.id, {
        from: ["queued"],
        to: "sent",
        sentAt: T0,
        event: { type: "sent", at: T0 },
        events: [domainEvent("email.sent")],
      });
      await storage().emails.claimDueEmails(T0, 10, 60_000, "w");
      const applied = await storage().emails.recordOutcomes([
        {
          id: two!.id,
          retry: {
            leaseOwner: "w",
            nextAttemptAt: T0 + 5000,
            lastError: "421",
            event: { type: "delivery_delayed", at: T0 },
            events: [domainEvent("email.delivery_delayed")],
          },
        },
        settledAtT0(three!.id, "failed"),
        settledAtT0(one!.id, "delivered"),
      ]);
      expect(applied).toEqual([true, true, false]);
      expect(await deliveriesOf(storage(), [a])).toEqual([
        "0:email.delivery_delayed",
        "0:email.failed",
        "0:email.sent",
      ]);
    });

    it("follows subscription changes: new events go to the new list, an endpoint enabled again gets events again", async () => {
      const a = await subscribedWebhook(storage(), ["flag.created"]);
      await storage().webhooks.updateWebhook(a.id, { events: ["flag.deleted"], updatedAt: T0 + 1 });
      await flagWrites(storage()).insert(flag("x"), undefined, [domainEvent("flag.created")]);
      await flagWrites(storage()).delete("x", undefined, () => [domainEvent("flag.deleted")]);
      await storage().webhooks.updateWebhook(a.id, { status: "disabled", updatedAt: T0 + 2 });
      await flagWrites(storage()).insert(flag("y"));
      await flagWrites(storage()).delete("y", undefined, () => [domainEvent("flag.deleted")]);
      await storage().webhooks.updateWebhook(a.id, { status: "enabled", updatedAt: T0 + 3 });
      await flagWrites(storage()).insert(flag("z"));
      await flagWrites(storage()).delete("z", undefined, () => [domainEvent("flag.deleted")]);
      expect(await deliveriesOf(storage(), [a])).toEqual(["0:flag.deleted", "0:flag.deleted"]);
    });
  });
}
