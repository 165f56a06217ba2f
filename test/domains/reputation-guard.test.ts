import { afterEach, beforeEach, expect, it } from "vitest";
import type { DeliveryReport } from "../../src/emails/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { reportHarness } from "../emails/support/report-harness.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { allVerified, type Receiver, startReceiver } from "../webhooks/support/receiver.js";

/**
 * Issue 28 item 4, the reputation guard, end to end: mail goes through the real worker to an SMTP
 * sink on 127.0.0.1, reports are injected as the inbound paths hand them over, the clock is fake,
 * and `domain.paused` reaches a real receiver that checks it with standardwebhooks and the resend SDK.
 */
const permanent = (emailId: string): DeliveryReport => ({
  type: "bounced",
  source: "dsn",
  emailId,
  recipient: `${emailId}@example.org`,
  action: "failed",
  status: "5.1.1",
  bounce: { type: "Permanent", subType: "General", reason: "userunknown", message: "550 5.1.1 no such user" },
});
const transient = (emailId: string): DeliveryReport => ({
  ...permanent(emailId),
  status: "4.2.2",
  bounce: { type: "Transient", subType: "MailboxFull", reason: "mailboxfull", message: "552 4.2.2 Mailbox full" },
});
const complaint = (emailId: string): DeliveryReport => ({
  type: "complained",
  source: "arf",
  emailId,
  recipient: `${emailId}@example.org`,
  feedbackType: "abuse",
});

describeEachStorage("reputation guard", (storage: () => Storage) => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());
  const t = reportHarness(storage, {
    domains: { autoStart: false, reputation: { window: 20, bounceRate: 0.05, complaintRate: 0.05 } },
    webhooks: { allowPrivateNetworks: true, pollIntervalMs: 100 },
  });

  /** The domain the harness sends from (acme.example), and an endpoint told of its pauses. */
  async function setUp() {
    const domain = await t.fp.domains.create({ name: "acme.example" });
    const hook = await t.fp.webhooks.create({ endpoint: `${receiver.url}/hook`, events: ["domain.paused"] });
    receiver.secrets = [hook.signing_secret];
    return domain;
  }

  /** `count` emails sent through the sink, each to its own recipient (`<id>@example.org` is set after sending). */
  async function sendMany(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const { id } = await t.fp.emails.send({
        from: "Acme <hello@acme.example>",
        to: "x@example.org",
        subject: "Hi",
        text: "Hello",
      });
      ids.push(id);
    }
    return ids;
  }

  it("pauses past 5% Permanent bounces of the window, holds mail while paused, and sends it on resume", async () => {
    const domain = await setUp();
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push(await t.sent(`${"r" + i}@example.org`));
    const sentBefore = t.sink.received.length;
    expect(sentBefore).toBe(20);
    const report = (id: string, make: (id: string) => DeliveryReport) => ({
      ...make(id),
      recipient: `r${ids.indexOf(id)}@example.org`,
    });

    // 1 of 20 is exactly 5%: not above the threshold. A Transient bounce does not count.
    await t.fp.emails.applyReports([report(ids[0]!, permanent), report(ids[1]!, transient)]);
    let view = await t.fp.domains.get(domain.id);
    expect(view).toMatchObject({ paused: false, paused_at: null });
    expect(view.reputation).toEqual({
      window: 20,
      sends: 20,
      bounce_rate: 0.05,
      complaint_rate: 0,
      bounce_threshold: 0.05,
      complaint_threshold: 0.05,
    });

    // The second Permanent bounce makes 10%: paused.
    await t.fp.emails.applyReports([report(ids[2]!, permanent)]);
    view = await t.fp.domains.get(domain.id);
    expect(view.paused).toBe(true);
    expect(view.paused_at).toBe(new Date(t.clock.now()).toISOString());
    expect(view.reputation.bounce_rate).toBe(0.1);
    expect((await t.fp.domains.list()).data[0]).toMatchObject({ id: domain.id, paused: true });

    // A third bounce while paused emits nothing more.
    await t.fp.emails.applyReports([report(ids[3]!, permanent)]);
    const [paused] = await receiver.waitFor(1);
    expect(allVerified([paused!])).toBe(true);
    expect(paused!.payload).toMatchObject({
      type: "domain.paused",
      data: { id: domain.id, name: "acme.example", paused: true, sends: 20, bounce_rate: 0.1, window: 20 },
    });

    // New mail waits: queued, with a paused event, and the worker hands nothing to the sink.
    const held = await sendMany(2);
    expect(await t.fp.emails.worker!.runOnce()).toBe(0);
    t.clock.advance(60_000);
    expect(await t.fp.emails.worker!.runOnce()).toBe(0);
    await t.sink.settled();
    expect(t.sink.received.length).toBe(sentBefore);
    for (const id of held) {
      expect((await t.fp.emails.get(id)).status).toBe("queued");
      const events = await t.fp.storage.emails.listEmailEvents(id);
      expect(events.map((e) => e.type)).toEqual(["queued", "paused"]);
      expect(events[1]!.detail).toEqual({ domain: "acme.example" });
    }
    // GET /metrics's outbox: held mail is neither due nor aging the outbox while the domain is paused.
    const depth = () => t.fp.storage.emails.outboxDepth!(t.clock.now());
    expect(await depth()).toEqual({ due: 0, scheduled: 0, held: 2 });

    // Resume: the held mail goes out, and no second domain.paused was ever sent.
    const resumed = await t.fp.domains.resume(domain.id);
    expect(resumed).toMatchObject({ paused: false, paused_at: null });
    expect(await depth()).toMatchObject({ due: 2, scheduled: 0, held: 0, oldestDueAt: expect.any(Number) });
    expect(await t.fp.emails.worker!.runOnce()).toBe(2);
    await t.sink.waitFor(sentBefore + 2);
    for (const id of held) expect((await t.fp.emails.get(id)).status).toBe("sent");
    expect(receiver.received.map((d) => d.payload.type)).toEqual(["domain.paused"]);
  }, 60_000);

  it("pauses on complaints above their threshold and leaves other domains' mail alone", async () => {
    const domain = await setUp();
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push(await t.sent(`c${i}@example.org`));
    const report = (i: number) => ({ ...complaint(ids[i]!), recipient: `c${i}@example.org` });
    await t.fp.emails.applyReports([report(0)]);
    expect((await t.fp.domains.get(domain.id)).paused).toBe(false);
    await t.fp.emails.applyReports([report(1)]);
    const view = await t.fp.domains.get(domain.id);
    expect(view.paused).toBe(true);
    expect(view.reputation.complaint_rate).toBe(0.1);

    const { id: other } = await t.fp.emails.send({
      from: "ops@other.example",
      to: "y@example.org",
      subject: "s",
      text: "t",
    });
    expect(await t.fp.emails.worker!.runOnce()).toBe(1);
    expect((await t.fp.emails.get(other)).status).toBe("sent");
    expect((await t.fp.storage.emails.listEmailEvents(other)).map((e) => e.type)).toEqual(["queued", "sent"]);
    const [paused] = await receiver.waitFor(1);
    expect(allVerified([paused!])).toBe(true);
    expect(paused!.payload.data).toMatchObject({ id: domain.id, complaint_rate: 0.1 });
  }, 60_000);
});
