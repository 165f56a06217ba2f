import { expect, it } from "vitest";
import type { Storage } from "../../src/ports/storage/index.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { reportHarness } from "./support/report-harness.js";

/**
 * Final states (issue 23, "Final states"), with emails sent for real to an SMTP sink on
 * every storage: `Action: failed` ends the email whatever the class, several recipients end once
 * every recipient the next hop accepted has its final word, and report events come after the
 * `sent` event they answer.
 */
describeEachStorage("final states from delivery reports", (storage: () => Storage) => {
  const t = reportHarness(storage);

  it("Action failed with 4.4.7 → bounced, Transient, nobody suppressed; delayed alone keeps it sent", async () => {
    const received = await t.subscribe();
    const id = await t.sent("gave-up@example.org");
    const delayed = await t.fp.emails.applyReports([
      {
        type: "delayed",
        source: "dsn",
        emailId: id,
        recipient: "gave-up@example.org",
        action: "delayed",
        status: "4.4.1",
      },
    ]);
    expect(delayed[0]).toMatchObject({ outcome: "recorded", status: "sent" });
    const failed = await t.fp.emails.applyReports([
      {
        type: "bounced",
        source: "dsn",
        emailId: id,
        recipient: "gave-up@example.org",
        action: "failed",
        status: "4.4.7",
        diagnostic: "delivery time expired",
        reason: "expired",
        bounce: { type: "Transient", subType: "General", reason: "expired", message: "delivery time expired" },
      },
    ]);
    expect(failed).toEqual([{ outcome: "applied", emailId: id, status: "bounced" }]);
    const bounce = {
      type: "Transient",
      subType: "General",
      reason: "expired",
      message: "delivery time expired",
      recipients: [
        { email: "gave-up@example.org", status: "4.4.7", reason: "expired", diagnostic: "delivery time expired" },
      ],
    };
    expect((await t.fp.emails.get(id)).bounce).toEqual(bounce);
    const events = await received();
    expect(events.map((e) => e.type)).toEqual(["email.delivery_delayed", "email.bounced"]);
    expect(events[1]!.data.bounce).toEqual(bounce);
    expect(await t.fp.storage.suppressions.suppressedAmong(["gave-up@example.org"])).toEqual([]);
  });

  it("one recipient suppressed, one refused at RCPT: the two delivered reports end it delivered", async () => {
    await t.fp.suppressions.add({ email: "gone@example.org" });
    t.sink.onRecipient = (address) =>
      address === "nobody@example.org" ? { code: 550, message: "5.1.1 <nobody@example.org>: User unknown" } : undefined;
    const received = await t.subscribe();
    const id = await t.sent(["a@example.org", "b@example.org", "gone@example.org", "nobody@example.org"]);
    const results = await t.fp.emails.applyReports(
      ["a@example.org", "b@example.org"].map((recipient) => ({
        type: "delivered" as const,
        source: "dsn" as const,
        emailId: id,
        recipient,
        action: "delivered" as const,
        status: "2.0.0",
      })),
    );
    expect(results.map((r) => [r.outcome, r.status])).toEqual([
      ["recorded", "sent"],
      ["applied", "delivered"],
    ]);
    expect((await received()).map((e) => e.type)).toContain("email.delivered");
    // The refusal at RCPT suppressed its address (5.1.1: the recipient's own fault).
    expect(await t.fp.storage.suppressions.getSuppression("nobody@example.org")).toMatchObject({
      origin: "bounce",
      sourceId: id,
      reason: "userunknown",
      bounceType: "Permanent",
      diagnostic: expect.stringContaining("User unknown"),
    });
  });

  it("every recipient bounced → bounced, the webhook listing each with status, reason and words", async () => {
    const received = await t.subscribe();
    const id = await t.sent(["x1@example.org", "x2@example.org"]);
    await t.fp.emails.applyReports([
      {
        type: "bounced",
        source: "dsn",
        emailId: id,
        recipient: "x1@example.org",
        action: "failed",
        status: "5.1.1",
        diagnostic: "550 5.1.1 unknown",
      },
      {
        type: "bounced",
        source: "dsn",
        emailId: id,
        recipient: "x2@example.org",
        action: "failed",
        status: "4.2.2",
        diagnostic: "452 4.2.2 full",
        reason: "mailboxfull",
      },
    ]);
    const email = await t.fp.emails.get(id);
    expect(email.status).toBe("bounced");
    expect(email.bounce).toMatchObject({
      type: "Permanent",
      subType: "NoEmail",
      reason: "userunknown",
      recipients: [
        { email: "x1@example.org", status: "5.1.1", reason: "userunknown", diagnostic: "550 5.1.1 unknown" },
        { email: "x2@example.org", status: "4.2.2", reason: "mailboxfull", diagnostic: "452 4.2.2 full" },
      ],
    });
    const bounced = (await received()).find((e) => e.type === "email.bounced")!;
    expect(bounced.data.bounce).toEqual(email.bounce);
    // Only the hard bounce about the address itself suppressed.
    expect(await t.fp.storage.suppressions.suppressedAmong(["x1@example.org", "x2@example.org"])).toEqual([
      "x1@example.org",
    ]);
  });

  it("a report for a recipient left out of the envelope is recorded and changes nothing; a repeat is ignored", async () => {
    await t.fp.suppressions.add({ email: "left@example.org" });
    const id = await t.sent(["in@example.org", "left@example.org"]);
    const outside = await t.fp.emails.applyReports([
      { type: "bounced", source: "dsn", emailId: id, recipient: "left@example.org", status: "5.1.1" },
    ]);
    expect(outside[0]).toMatchObject({ outcome: "recorded", status: "sent" });
    expect(outside[0]!.suppressed).toBeUndefined();
    const inside = await t.fp.emails.applyReports([
      { type: "delivered", source: "dsn", emailId: id, recipient: "in@example.org" },
      { type: "bounced", source: "dsn", emailId: id, recipient: "in@example.org", status: "5.1.1" },
    ]);
    expect(inside.map((r) => r.outcome)).toEqual(["applied", "ignored"]);
    expect((await t.fp.emails.get(id)).status).toBe("delivered");
    expect(await t.fp.storage.suppressions.suppressedAmong(["in@example.org"])).toEqual([]);
  });

  it("places a report whose one-second Date is before the sent event just after it", async () => {
    const id = await t.sent("early@example.org");
    const sent = (await t.fp.emails.events(id)).find((e) => e.type === "sent")!;
    const secondBefore = new Date(Math.floor(Date.parse(sent.occurred_at) / 1000) * 1000 - 1000).toISOString();
    await t.fp.emails.applyReports([
      { type: "delivered", source: "dsn", emailId: id, recipient: "early@example.org", occurredAt: secondBefore },
    ]);
    const delivered = (await t.fp.emails.events(id)).at(-1)!;
    expect(delivered.type).toBe("delivered");
    expect(delivered.occurred_at).toBe(new Date(Date.parse(sent.occurred_at) + 1).toISOString());
    expect(delivered.detail).toMatchObject({ reported_at: secondBefore });
  });

  it("records an auto-reply as an event with reason vacation, changing neither status nor last_event", async () => {
    const id = await t.sent("away@example.org");
    const results = await t.fp.emails.applyReports([
      { type: "auto_replied", source: "dsn", emailId: id, recipient: "away@example.org", reason: "vacation" },
    ]);
    expect(results[0]).toMatchObject({ outcome: "recorded", status: "sent" });
    expect(await t.fp.emails.get(id)).toMatchObject({ status: "sent", last_event: "sent" });
    expect((await t.fp.emails.events(id)).at(-1)).toMatchObject({
      type: "auto_replied",
      detail: { source: "dsn", recipient: "away@example.org", reason: "vacation" },
    });
  });
});
