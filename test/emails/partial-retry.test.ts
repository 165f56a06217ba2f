import nodemailer from "nodemailer";
import { afterEach, beforeEach, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { OutboxWorkerOptions, SendEmailRequest } from "../../src/emails/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { type FakeClock, fakeClock } from "../support/fake-clock.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { describeEachStorage } from "../support/storage-backends.js";

/**
 * Issue 13 item 7 and issue 11 item 6 over a real smtp-server on 127.0.0.1: a temporary refusal
 * of some recipients retries those recipients only (the others are not mailed twice), and an
 * email too large to be claimed with its content is read when sent and arrives whole.
 */

const request: SendEmailRequest = {
  from: "Flagpost <hello@example.com>",
  to: ["ann@example.org", "bob@example.org"],
  cc: "carol@example.org",
  subject: "Hi",
  text: "Hello",
};

describeEachStorage("retrying only the recipients refused for now", (storage: () => Storage) => {
  let sink: SmtpSink;
  let clock: FakeClock;
  let fp: Flagpost | undefined;

  function open(worker: OutboxWorkerOptions = {}): Flagpost {
    const transporter = nodemailer.createTransport({
      host: "127.0.0.1",
      port: sink.port,
      secure: false,
      ignoreTLS: true,
      pool: true,
    });
    fp = createFlagpost({
      storage: storage(),
      clock,
      logger: silentLogger,
      transport: nodemailerTransport(transporter, { name: "smtp", closeTransporter: true }),
      emailWorker: { autoStart: false, ...worker },
    });
    return fp;
  }

  beforeEach(async () => {
    sink = await startSmtpSink();
    clock = fakeClock();
  });
  afterEach(async () => {
    await fp?.close();
    fp = undefined;
    await sink.close();
  });

  /** Messages each recipient received (by envelope). */
  const mailed = () => {
    const counts: Record<string, number> = {};
    for (const m of sink.received) for (const to of m.envelope.to) counts[to] = (counts[to] ?? 0) + 1;
    return counts;
  };

  async function retryWhenDue(flagpost: Flagpost, id: string): Promise<void> {
    const queued = await flagpost.storage.emails.getEmail(id);
    clock.set(queued!.nextAttemptAt);
    expect(await flagpost.emails.worker!.runOnce()).toBe(1);
  }

  it("450 for one of three recipients: the two are mailed once, the third on the retry; then sent", async () => {
    const flagpost = open();
    await flagpost.ready();
    sink.onRecipient = (address, attempt) =>
      address === "bob@example.org" && attempt === 1 ? { code: 450, message: "Mailbox busy" } : undefined;
    const { id } = await flagpost.emails.send(request);
    await flagpost.emails.worker!.runOnce();

    expect(await flagpost.emails.get(id)).toMatchObject({ status: "queued", last_event: "delivery_delayed" });
    const delayed = (await flagpost.emails.events(id)).at(-1)!;
    expect(delayed.detail).toMatchObject({
      partial: true,
      accepted: ["ann@example.org", "carol@example.org"],
      pending: ["bob@example.org"],
      rejected: [{ recipient: "bob@example.org", code: 450, permanent: false }],
      attempt: 1,
    });
    expect(mailed()).toEqual({ "ann@example.org": 1, "carol@example.org": 1 });

    await retryWhenDue(flagpost, id);
    expect(mailed()).toEqual({ "ann@example.org": 1, "bob@example.org": 1, "carol@example.org": 1 });
    expect(sink.received.map((m) => m.envelope.to)).toEqual([
      ["ann@example.org", "carol@example.org"],
      ["bob@example.org"],
    ]);
    // Both copies are the same message: headers name every recipient, as the first did.
    expect(new Set(sink.received.map((m) => m.messageId)).size).toBe(1);
    expect(sink.received[1]!.parsed.cc).toBeDefined();
    const email = await flagpost.emails.get(id);
    expect(email.status).toBe("sent");
    const sent = (await flagpost.emails.events(id)).at(-1)!;
    expect(sent.type).toBe("sent");
    expect([...(sent.detail!.accepted as string[])].sort()).toEqual([
      "ann@example.org",
      "bob@example.org",
      "carol@example.org",
    ]);
    expect(await flagpost.emails.worker!.runOnce()).toBe(0);
  });

  it("a recipient refused for now until the budget is spent: sent to the others, the rest listed as unsent", async () => {
    const flagpost = open({ retry: { maxAttempts: 2 } });
    await flagpost.ready();
    sink.onRecipient = (address) => (address === "bob@example.org" ? { code: 451, message: "Later" } : undefined);
    const { id } = await flagpost.emails.send(request);
    await flagpost.emails.worker!.runOnce();
    await retryWhenDue(flagpost, id);

    expect(mailed()).toEqual({ "ann@example.org": 1, "carol@example.org": 1 });
    expect(await flagpost.emails.get(id)).toMatchObject({ status: "sent", last_event: "sent" });
    const sent = (await flagpost.emails.events(id)).at(-1)!;
    expect(sent.detail).toMatchObject({
      accepted: ["ann@example.org", "carol@example.org"],
      unsent: ["bob@example.org"],
    });
    expect(await flagpost.emails.worker!.runOnce()).toBe(0);
  });

  it("a permanent refusal next to a temporary one: only the temporary one is retried", async () => {
    const flagpost = open();
    await flagpost.ready();
    sink.onRecipient = (address, attempt) =>
      address === "bob@example.org"
        ? { code: 550, message: "No such user" }
        : address === "carol@example.org" && attempt === 1
          ? { code: 452, message: "Too many recipients" }
          : undefined;
    const { id } = await flagpost.emails.send(request);
    await flagpost.emails.worker!.runOnce();
    await retryWhenDue(flagpost, id);

    expect(mailed()).toEqual({ "ann@example.org": 1, "carol@example.org": 1 });
    const sent = (await flagpost.emails.events(id)).at(-1)!;
    expect(sent.type).toBe("sent");
    expect([...(sent.detail!.accepted as string[])].sort()).toEqual(["ann@example.org", "carol@example.org"]);
    expect(sent.detail!.rejected).toMatchObject([
      { recipient: "bob@example.org", code: 550, response: "550 No such user", permanent: true },
    ]);
  });

  it("an email larger than largeEmailBytes is claimed without its content and sent whole", async () => {
    const flagpost = open({ largeEmailBytes: 200 });
    await flagpost.ready();
    const text = "x".repeat(5_000);
    const attachment = Buffer.from("a".repeat(3_000)).toString("base64");
    const small = await flagpost.emails.send({
      from: request.from,
      to: "dan@example.org",
      subject: "Hi",
      text: "Hello",
    });
    const large = await flagpost.emails.send({
      ...request,
      text,
      attachments: [{ filename: "a.txt", content: attachment }],
    });
    const claimed = await flagpost.storage.emails.claimDueEmails(clock.now(), 10, 60_000, "probe", {
      maxContentBytes: 200,
    });
    const byId = new Map(claimed.map((c) => [c.id, c]));
    expect(byId.get(small.id)!.omittedContentBytes).toBeUndefined();
    expect(byId.get(small.id)!.content.text).toBe("Hello");
    expect(byId.get(large.id)!.omittedContentBytes).toBeGreaterThan(8_000);
    expect(byId.get(large.id)!.content).toEqual({
      from: request.from,
      to: request.to,
      cc: ["carol@example.org"],
      subject: "Hi",
    });
    await flagpost.storage.emails.releaseEmailLeases(["probe"]);

    expect(await flagpost.emails.worker!.runOnce()).toBe(2);
    const arrived = sink.received.find((m) => m.messageId === `<${large.id}@example.com>`)!;
    expect(arrived.parsed.text?.trim()).toBe(text);
    expect(arrived.parsed.attachments[0]!.content.toString()).toBe("a".repeat(3_000));
    expect((await flagpost.emails.get(large.id)).status).toBe("sent");
  });
});
