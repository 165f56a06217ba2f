import { expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import type { DeliveryReport } from "../../src/emails/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { reportHarness } from "./support/report-harness.js";

/**
 * The suppression policy (issue 23, "Suppression"): a Permanent bounce about the recipient
 * or a complaint suppresses; a sender-side reason never does, though the email and its webhook
 * show it; soft bounces only with the opt-in `suppression.softBounces`.
 */
const hard = (emailId: string, recipient: string, extra: Partial<DeliveryReport> = {}): DeliveryReport => ({
  type: "bounced",
  source: "dsn",
  emailId,
  recipient,
  action: "failed",
  ...extra,
});
const full = { status: "4.2.2", reason: "mailboxfull", diagnostic: "452 4.2.2 Mailbox full" } as const;

describeEachStorage("suppression by reason", (storage: () => Storage) => {
  const t = reportHarness(storage);

  it("a sender-side Permanent bounce (blocked) ends the email and shows its reason, but suppresses nobody", async () => {
    const received = await t.subscribe();
    const id = await t.sent("boss@example.org");
    const diagnostic = "550 5.7.1 Service unavailable; client host [192.0.2.1] blocked using zen.spamhaus.org";
    const results = await t.fp.emails.applyReports([
      hard(id, "boss@example.org", {
        status: "5.7.1",
        diagnostic,
        reason: "blocked",
        bounce: { type: "Permanent", subType: "General", reason: "blocked", message: diagnostic },
      }),
    ]);
    expect(results).toEqual([{ outcome: "applied", emailId: id, status: "bounced" }]);
    expect(await t.fp.storage.suppressions.suppressedAmong(["boss@example.org"])).toEqual([]);
    const bounced = (await received()).find((e) => e.type === "email.bounced")!;
    expect(bounced.data.bounce).toMatchObject({ reason: "blocked", recipients: [{ reason: "blocked", diagnostic }] });
  });

  it("a complaint suppresses the complaining recipient, once per recipient", async () => {
    const id = await t.sent(["c1@example.org", "c2@example.org"]);
    const results = await t.fp.emails.applyReports([
      { type: "complained", source: "arf", emailId: id, recipient: "c1@example.org", feedbackType: "abuse" },
      { type: "complained", source: "arf", emailId: id, recipient: "c2@example.org", feedbackType: "abuse" },
      { type: "complained", source: "arf", emailId: id, recipient: "c2@example.org", feedbackType: "abuse" },
    ]);
    expect(results.map((r) => [r.outcome, r.suppressed])).toEqual([
      ["applied", ["c1@example.org"]],
      ["recorded", ["c2@example.org"]],
      ["ignored", undefined],
    ]);
    expect(await t.fp.storage.suppressions.getSuppression("c2@example.org")).toMatchObject({
      origin: "complaint",
      reason: "feedback",
    });
  });

  it("soft bounces never suppress without the opt-in", async () => {
    for (let i = 0; i < 3; i += 1) {
      const id = await t.sent("soft@example.org");
      await t.fp.emails.applyReports([hard(id, "soft@example.org", full)]);
    }
    expect(await t.fp.storage.suppressions.suppressedAmong(["soft@example.org"])).toEqual([]);
  });
});

describeEachStorage("suppression after repeated soft bounces (opt-in)", (storage: () => Storage) => {
  const t = reportHarness(storage, { suppression: { softBounces: { count: 2, days: 7 } } });

  it("suppresses at the second soft bounce within the window, not for a sender-side one or one outside it", async () => {
    const first = await t.sent("soft@example.org");
    expect((await t.fp.emails.applyReports([hard(first, "soft@example.org", full)]))[0]!.suppressed).toBeUndefined();
    // A sender-side soft bounce is not counted.
    const blocked = await t.sent("soft@example.org");
    await t.fp.emails.applyReports([hard(blocked, "soft@example.org", { status: "4.7.0", reason: "toomanyconn" })]);
    expect(await t.fp.storage.suppressions.suppressedAmong(["soft@example.org"])).toEqual([]);
    // Eight days later the first one no longer counts.
    t.clock.advance(8 * 24 * 60 * 60 * 1000);
    const third = await t.sent("soft@example.org");
    expect((await t.fp.emails.applyReports([hard(third, "soft@example.org", full)]))[0]!.suppressed).toBeUndefined();
    const fourth = await t.sent("soft@example.org");
    expect((await t.fp.emails.applyReports([hard(fourth, "soft@example.org", full)]))[0]!.suppressed).toEqual([
      "soft@example.org",
    ]);
    expect(await t.fp.storage.suppressions.getSuppression("soft@example.org")).toMatchObject({
      origin: "bounce",
      reason: "mailboxfull",
      bounceType: "Transient",
      sourceId: fourth,
    });
  });
});

it("refuses a soft-bounce rule that makes no sense", () => {
  for (const softBounces of [
    { count: 0, days: 7 },
    { count: 1.5, days: 7 },
    { count: 3, days: 0 },
  ])
    expect(() => createFlagpost({ storage: memoryStorage(), suppression: { softBounces } })).toThrow(/softBounces/);
});
