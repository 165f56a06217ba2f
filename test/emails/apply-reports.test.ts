import { expect, it } from "vitest";
import type { DeliveryReport } from "../../src/emails/index.js";
import { FlagpostError } from "../../src/errors.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { reportHarness } from "./support/report-harness.js";

/**
 * `applyReports` on every storage, with emails sent for real through nodemailer to an SMTP sink
 * on 127.0.0.1: each report source ends in the same lifecycle transition, hard bounces and
 * complaints fill the suppression list, and what matches nothing is stored.
 */
describeEachStorage("applying delivery reports", (storage: () => Storage) => {
  const h = reportHarness(storage);

  it("moves a sent email to delivered by the VERP id, with its event and webhook", async () => {
    const received = await h.subscribe();
    const id = await h.sent("ann@example.org");
    const at = new Date(h.clock.now() - 500).toISOString();
    const results = await h.fp.emails.applyReports([
      {
        type: "delivered",
        source: "dsn",
        emailId: id.toUpperCase(),
        recipient: "Ann@Example.org",
        occurredAt: at,
        status: "2.0.0",
      },
    ]);
    expect(results).toEqual([{ outcome: "applied", emailId: id, status: "delivered" }]);
    const view = await h.fp.emails.get(id);
    expect(view).toMatchObject({ status: "delivered", last_event: "delivered", delivered_at: at });
    expect((await h.fp.emails.events(id)).at(-1)).toEqual({
      type: "delivered",
      occurred_at: at,
      detail: { source: "dsn", recipient: "ann@example.org", status: "2.0.0", reported_at: at },
    });
    expect((await received()).map((e) => e.type)).toEqual(["email.delivered"]);
    expect(await h.fp.storage.suppressions.suppressedAmong(["ann@example.org"])).toEqual([]);
  });

  it("bounces by the original Message-ID, suppresses the address and emits bounce details", async () => {
    const received = await h.subscribe();
    const id = await h.sent("Bob <bob@example.org>");
    const { message_id } = await h.fp.emails.get(id);
    const bounce = {
      type: "Permanent" as const,
      subType: "General",
      message: "550 5.1.1 <bob@example.org>: user unknown",
    };
    const results = await h.fp.emails.applyReports([
      {
        type: "bounced",
        source: "dsn",
        messageId: message_id.toUpperCase(),
        recipient: "bob@example.org",
        bounce,
        status: "5.1.1",
      },
    ]);
    expect(results).toEqual([{ outcome: "applied", emailId: id, status: "bounced", suppressed: ["bob@example.org"] }]);
    expect(await h.fp.storage.suppressions.getSuppression("bob@example.org")).toMatchObject({
      email: "bob@example.org",
      origin: "bounce",
      sourceId: id,
    });
    const events = await received();
    expect(events.map((e) => e.type)).toEqual(["email.bounced", "suppression.added"]);
    expect(events[0]!.data).toMatchObject({ email_id: id, bounce });
    expect(events[1]!.data).toMatchObject({ email: "bob@example.org", origin: "bounce", source_id: id });
    // The same report again changes nothing and answers why.
    const again = await h.fp.emails.applyReports([
      { type: "bounced", source: "dsn", emailId: id, recipient: "bob@example.org", bounce },
    ]);
    expect(again[0]).toMatchObject({ outcome: "ignored", status: "bounced" });
    expect((await h.fp.emails.events(id)).map((e) => e.type)).toEqual(["queued", "sent", "bounced"]);
  });

  it("records delays without a status change; a soft bounce that gave up ends the email, bounced Transient, unsuppressed", async () => {
    const received = await h.subscribe();
    const id = await h.sent("cy@example.org");
    const results = await h.fp.emails.applyReports([
      { type: "delayed", source: "dsn", emailId: id, recipient: "cy@example.org", status: "4.4.7" },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(["recorded"]);
    expect(await h.fp.emails.get(id)).toMatchObject({ status: "sent", last_event: "delivery_delayed" });
    const gaveUp = await h.fp.emails.applyReports([
      {
        type: "bounced",
        source: "ses",
        emailId: id,
        recipient: "cy@example.org",
        action: "failed",
        reason: "mailboxfull",
        bounce: { type: "Transient", subType: "MailboxFull", reason: "mailboxfull", message: "452 4.2.2 mailbox full" },
      },
    ]);
    expect(gaveUp).toEqual([{ outcome: "applied", emailId: id, status: "bounced" }]);
    expect((await h.fp.emails.get(id)).bounce).toEqual({
      type: "Transient",
      subType: "MailboxFull",
      reason: "mailboxfull",
      message: "452 4.2.2 mailbox full",
      recipients: [{ email: "cy@example.org", reason: "mailboxfull", diagnostic: "452 4.2.2 mailbox full" }],
    });
    expect((await received()).map((e) => e.type)).toEqual(["email.delivery_delayed", "email.bounced"]);
    expect(await h.fp.storage.suppressions.suppressedAmong(["cy@example.org"])).toEqual([]);
  });

  it("turns a complaint into complained and suppresses the only recipient when the report names nobody", async () => {
    const id = await h.sent("dee@example.org");
    await h.fp.emails.applyReports([{ type: "delivered", source: "dsn", emailId: id }]);
    const results = await h.fp.emails.applyReports([
      { type: "complained", source: "arf", emailId: id, feedbackType: "abuse" },
    ]);
    expect(results).toEqual([
      { outcome: "applied", emailId: id, status: "complained", suppressed: ["dee@example.org"] },
    ]);
    expect(await h.fp.storage.suppressions.getSuppression("dee@example.org")).toMatchObject({ origin: "complaint" });
    expect((await h.fp.emails.events(id)).at(-1)).toMatchObject({
      type: "complained",
      detail: { feedback_type: "abuse" },
    });
  });

  it("finds an email by the queue id the relay gave it", async () => {
    h.sink.onData = () => ({ code: 250, message: "2.0.0 Ok: queued as 4F1A2B3C4D" });
    const id = await h.sent("eve@example.org");
    const results = await h.fp.emails.applyReports([
      { type: "delivered", source: "dsn", providerMessageId: "4F1A2B3C4D", recipient: "eve@example.org" },
    ]);
    expect(results).toEqual([{ outcome: "applied", emailId: id, status: "delivered" }]);
    expect((await h.fp.emails.events(id)).find((e) => e.type === "sent")?.detail).toMatchObject({
      provider_message_id: "4F1A2B3C4D",
    });
  });

  it("waits for every recipient: delivered once each has a final report, bounced when all bounced", async () => {
    const id = await h.sent(["f1@example.org", "f2@example.org"]);
    const first = await h.fp.emails.applyReports([
      { type: "delivered", source: "dsn", emailId: id, recipient: "f1@example.org" },
    ]);
    expect(first).toEqual([{ outcome: "recorded", emailId: id, status: "sent" }]);
    expect(await h.fp.emails.get(id)).toMatchObject({ status: "sent", last_event: "delivered" });
    const second = await h.fp.emails.applyReports([
      { type: "bounced", source: "dsn", emailId: id, recipient: "f2@example.org", status: "5.1.1" },
    ]);
    expect(second).toEqual([{ outcome: "applied", emailId: id, status: "delivered", suppressed: ["f2@example.org"] }]);

    const other = await h.sent(["g1@example.org", "g2@example.org"]);
    const both = await h.fp.emails.applyReports([
      { type: "bounced", source: "dsn", emailId: other, recipient: "g1@example.org", status: "5.1.1" },
      { type: "bounced", source: "dsn", emailId: other, recipient: "g2@example.org", status: "5.2.1" },
    ]);
    expect(both.map((r) => [r.outcome, r.status])).toEqual([
      ["recorded", "sent"],
      ["applied", "bounced"],
    ]);
    // 5.2.1 (mailbox disabled) is `suspend`, a soft bounce as Sisimai reads it: final, not suppressed.
    expect((await h.fp.storage.suppressions.suppressedAmong(["g1@example.org", "g2@example.org"])).sort()).toEqual([
      "g1@example.org",
    ]);
  });

  it("takes a hand report whose detail is a string, kept as its message", async () => {
    const received = await h.subscribe();
    const id = await h.sent("kim@example.org");
    const view = await h.fp.emails.recordEvent(id, { type: "bounced", detail: "550 5.1.1 mailbox unknown" });
    expect(view).toMatchObject({ status: "bounced", last_event: "bounced" });
    expect((await h.fp.emails.events(id)).at(-1)?.detail).toEqual({
      source: "report",
      message: "550 5.1.1 mailbox unknown",
    });
    expect((await received())[0]!.data).toMatchObject({ bounce: { message: "550 5.1.1 mailbox unknown" } });
    const wrong = await h.fp.emails
      .recordEvent(id, { type: "complained", detail: 5 as never })
      .catch((e: unknown) => e);
    expect(wrong).toMatchObject({ code: "validation_error", message: '"detail" must be an object or a string' });
  });

  it("stores reports that match nothing and answers them, never refusing", async () => {
    const id = await h.sent("hal@example.org");
    const reports: DeliveryReport[] = [
      { type: "bounced", source: "dsn", emailId: "0190aaaa-0000-7000-8000-000000000000", recipient: "x@example.org" },
      { type: "delivered", source: "dsn", messageId: `<${id}@someone-else.example>` },
      { type: "complained", source: "arf", providerMessageId: "nope" },
      { type: "delivered", source: "dsn", messageId: "not a message id" },
    ];
    const results = await h.fp.emails.applyReports(reports);
    expect(results.map((r) => r.outcome)).toEqual(["unmatched", "unmatched", "unmatched", "unmatched"]);
    const stored = await h.fp.storage.deliveryReports.listUnmatchedReports({ limit: 10 });
    expect(stored.map((r) => r.report).reverse()).toEqual(reports);
    expect(await h.fp.storage.suppressions.suppressedAmong(["x@example.org"])).toEqual([]);
    expect((await h.fp.emails.get(id)).status).toBe("sent");
  });

  it("refuses what is not a report before applying anything", async () => {
    const id = await h.sent("ida@example.org");
    const error = await h.fp.emails
      .applyReports([{ type: "delivered", source: "dsn", emailId: id }, { type: "opened", source: "dsn" } as never])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlagpostError);
    expect((error as FlagpostError).code).toBe("validation_error");
    expect((error as FlagpostError).message).toMatch(/^"1\.type" /);
    expect((await h.fp.emails.get(id)).status).toBe("sent");
  });
});
