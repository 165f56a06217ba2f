import nodemailer from "nodemailer";
import { afterEach, beforeEach, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { SendEmailRequest } from "../../src/emails/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { type FakeClock, fakeClock } from "../support/fake-clock.js";
import { closedPort, type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { describeEachStorage } from "../support/storage-backends.js";

/**
 * The outbox end to end: fp.emails.send → storage → OutboxWorker → nodemailer's SMTP pool → a real
 * smtp-server on 127.0.0.1 that answers 250, 4xx or 5xx per recipient and at DATA. The clock is
 * fake, so retries are reached by moving it, never by waiting.
 */

const request: SendEmailRequest = {
  from: "Flagpost <hello@example.com>",
  to: "ann@example.org",
  subject: "Hi",
  text: "Hello",
};

function smtpTransport(port: number) {
  return nodemailerTransport(
    nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, pool: true }),
    {
      name: "smtp",
      closeTransporter: true,
    },
  );
}

describeEachStorage("email outcomes over SMTP", (storage: () => Storage) => {
  let sink: SmtpSink;
  let clock: FakeClock;
  let fp: Flagpost;

  function open(port: number, worker: Parameters<typeof createFlagpost>[0]["emailWorker"] = {}): Flagpost {
    return createFlagpost({
      storage: storage(),
      clock,
      logger: silentLogger,
      transport: smtpTransport(port),
      emailWorker: { autoStart: false, ...worker },
    });
  }

  beforeEach(async () => {
    sink = await startSmtpSink();
    clock = fakeClock();
    fp = open(sink.port);
    await fp.ready();
  });
  afterEach(async () => {
    await fp.close();
    await sink.close();
  });

  const run = () => fp.emails.worker!.runOnce();
  const types = async (id: string) => (await fp.emails.events(id)).map((e) => e.type);

  it("queued → sent: the message arrives with the email's Message-ID", async () => {
    const { id, status } = await fp.emails.send(request);
    expect(status).toBe("queued");
    expect(await run()).toBe(1);
    const email = await fp.emails.get(id);
    expect(email).toMatchObject({ status: "sent", last_event: "sent", sent_at: new Date(clock.now()).toISOString() });
    expect(email.delivered_at).toBeUndefined();
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]!.messageId).toBe(email.message_id);
    expect(email.message_id).toBe(`<${id}@example.com>`);
    const events = await fp.emails.events(id);
    expect(events.map((e) => e.type)).toEqual(["queued", "sent"]);
    expect(events[1]!.detail).toMatchObject({ accepted: ["ann@example.org"], message_id: email.message_id });
    expect(String(events[1]!.detail!.response)).toMatch(/^250 /);
    expect(await run()).toBe(0); // nothing left to send
  });

  it("every recipient refused with 550 → bounced, with each recipient's reply", async () => {
    sink.onRecipient = () => ({ code: 550, message: "No such user" });
    const { id } = await fp.emails.send({
      ...request,
      to: ["ann@example.org", "bob@example.org"],
      cc: "carol@example.org",
    });
    await run();
    expect((await fp.emails.get(id)).status).toBe("bounced");
    const bounced = (await fp.emails.events(id)).at(-1)!;
    expect(bounced.type).toBe("bounced");
    // Each refusal also carries its classification (test/emails/rcpt-refusals.test.ts checks it).
    expect(bounced.detail!.rejected).toMatchObject([
      { recipient: "ann@example.org", code: 550, response: "550 No such user", permanent: true },
      { recipient: "bob@example.org", code: 550, response: "550 No such user", permanent: true },
      { recipient: "carol@example.org", code: 550, response: "550 No such user", permanent: true },
    ]);
    expect(sink.received).toHaveLength(0);
    expect(await run()).toBe(0);
  });

  it("some recipients refused → sent to the others, the refusals recorded per recipient", async () => {
    sink.onRecipient = (address) =>
      address === "bob@example.org" ? { code: 550, message: "No such user" } : undefined;
    const { id } = await fp.emails.send({ ...request, to: ["ann@example.org", "bob@example.org"] });
    await run();
    expect((await fp.emails.get(id)).status).toBe("sent");
    const sent = (await fp.emails.events(id)).at(-1)!;
    expect(sent.detail).toMatchObject({
      accepted: ["ann@example.org"],
      rejected: [{ recipient: "bob@example.org", code: 550, response: "550 No such user", permanent: true }],
    });
    expect(sink.received[0]!.envelope.to).toEqual(["ann@example.org"]);
  });

  it("450 twice, then 250 → sent on the third attempt, after backoff delays within 5 s and 10 s", async () => {
    sink.onRecipient = (_address, attempt) => (attempt <= 2 ? { code: 450, message: "Mailbox busy" } : undefined);
    const { id } = await fp.emails.send(request);
    const start = clock.now();

    await run();
    const first = await fp.storage.emails.getEmail(id);
    expect(first).toMatchObject({ status: "queued", attempts: 1, lastError: expect.stringContaining("450") });
    const firstDelay = first!.nextAttemptAt - start;
    expect(firstDelay).toBeGreaterThanOrEqual(0);
    expect(firstDelay).toBeLessThanOrEqual(5_000);
    if (firstDelay > 0) {
      clock.set(first!.nextAttemptAt - 1);
      expect(await run()).toBe(0); // not due yet
    }

    clock.set(first!.nextAttemptAt);
    await run();
    const second = await fp.storage.emails.getEmail(id);
    expect(second).toMatchObject({ status: "queued", attempts: 2 });
    const secondDelay = second!.nextAttemptAt - clock.now();
    expect(secondDelay).toBeGreaterThanOrEqual(0);
    expect(secondDelay).toBeLessThanOrEqual(10_000);

    clock.set(second!.nextAttemptAt);
    await run();
    expect(await fp.emails.get(id)).toMatchObject({ status: "sent" });
    expect(await types(id)).toEqual(["queued", "delivery_delayed", "delivery_delayed", "sent"]);
    const delayed = (await fp.emails.events(id))[1]!;
    expect(delayed.detail).toMatchObject({
      code: 450,
      attempt: 1,
      next_attempt_at: new Date(first!.nextAttemptAt).toISOString(),
    });
    expect(sink.received).toHaveLength(1);
  });

  it("a message refused at DATA with 554 → failed; with 451 → retried", async () => {
    sink.onData = (message) =>
      message.parsed.subject === "refuse" ? { code: 554, message: "Message refused" } : { code: 451, message: "Later" };
    const refused = await fp.emails.send({ ...request, subject: "refuse" });
    const later = await fp.emails.send({ ...request, subject: "later" });
    await run();
    expect((await fp.emails.get(refused.id)).status).toBe("failed");
    expect((await fp.emails.events(refused.id)).at(-1)!.detail).toMatchObject({
      code: 554,
      response: "554 Message refused",
    });
    expect(await fp.storage.emails.getEmail(later.id)).toMatchObject({ status: "queued", attempts: 1 });
  });

  it("holds a scheduled email until its time", async () => {
    const at = new Date(clock.now() + 3_600_000).toISOString();
    const { id } = await fp.emails.send({ ...request, scheduled_at: at });
    expect((await fp.emails.get(id)).scheduled_at).toBe(at);
    expect(await run()).toBe(0);
    clock.advance(3_599_999);
    expect(await run()).toBe(0);
    clock.advance(1);
    expect(await run()).toBe(1);
    expect((await fp.emails.get(id)).status).toBe("sent");
  });

  it("sends an email whose worker crashed once its lease ends, with the same Message-ID", async () => {
    const { id } = await fp.emails.send(request);
    const [claimed] = await fp.storage.emails.claimDueEmails(clock.now(), 1, 300_000, "crashed-worker");
    expect(claimed!.id).toBe(id);
    expect(await run()).toBe(0); // the lease still holds
    clock.advance(300_000);
    expect(await run()).toBe(1);
    expect(await fp.storage.emails.getEmail(id)).toMatchObject({ status: "sent", attempts: 2 });
    expect(sink.received[0]!.messageId).toBe(`<${id}@example.com>`);
  });

  it("delivers every field of the request: From, To, Cc, Reply-To, Subject, parts, attachments, headers; Bcc in the envelope only", async () => {
    const { id } = await fp.emails.send({
      from: "Flagpost <hello@example.com>",
      to: ['"Doe, Jane" <jane@example.org>', "bob@example.org"],
      cc: "Carol <carol@example.org>",
      bcc: ["hidden@example.org"],
      reply_to: "support@example.com",
      subject: "Ünïcode ✓",
      html: "<p>Hi</p>",
      text: "Hi",
      headers: { "X-Entity-Ref-ID": "abc-123" },
      tags: [{ name: "category", value: "welcome" }],
      attachments: [
        { filename: "hello.txt", content: Buffer.from("hello").toString("base64"), content_type: "text/plain" },
      ],
    });
    await run();
    const [got] = sink.received;
    const mail = got!.parsed;
    expect(mail.from?.value).toEqual([{ name: "Flagpost", address: "hello@example.com" }]);
    expect((Array.isArray(mail.to) ? mail.to[0] : mail.to)?.value).toEqual([
      { name: "Doe, Jane", address: "jane@example.org" },
      { name: "", address: "bob@example.org" },
    ]);
    expect((Array.isArray(mail.cc) ? mail.cc[0] : mail.cc)?.value).toEqual([
      { name: "Carol", address: "carol@example.org" },
    ]);
    expect(mail.replyTo?.value).toEqual([{ name: "", address: "support@example.com" }]);
    expect(mail.subject).toBe("Ünïcode ✓");
    expect(mail.html).toContain("<p>Hi</p>");
    expect(mail.text?.trim()).toBe("Hi");
    expect(mail.headers.get("x-entity-ref-id")).toBe("abc-123");
    expect(mail.attachments.map((a) => [a.filename, a.contentType, a.content.toString()])).toEqual([
      ["hello.txt", "text/plain", "hello"],
    ]);
    expect(mail.headers.has("bcc")).toBe(false);
    expect(got!.raw.toString("latin1")).not.toContain("hidden@example.org");
    expect(got!.envelope.to).toEqual([
      "jane@example.org",
      "bob@example.org",
      "carol@example.org",
      "hidden@example.org",
    ]);
    expect(got!.envelope.from).toBe("hello@example.com");
    expect(mail.messageId).toBe(`<${id}@example.com>`);
  });

  it("stop() lets a send in flight finish and records it", async () => {
    const held = sink.hold();
    const { id } = await fp.emails.send(request);
    fp.emails.worker!.start();
    await held.arrived(1); // the server has the message and has not answered yet
    let stopped = false;
    const stopping = fp.emails.worker!.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    expect(fp.emails.worker!.inFlight).toBe(1);
    held.release();
    await stopping;
    expect((await fp.emails.get(id)).status).toBe("sent");
    expect(fp.emails.worker!.running).toBe(false);
  });

  it("server down → retried with growing delays, then failed after 8 attempts", async () => {
    await fp.close();
    fp = open(await closedPort());
    await fp.ready();
    const { id } = await fp.emails.send(request);
    for (let attempt = 1; attempt <= 7; attempt += 1) {
      const before = clock.now();
      expect(await run()).toBe(1);
      const email = await fp.storage.emails.getEmail(id);
      expect(email).toMatchObject({ status: "queued", attempts: attempt });
      const delay = email!.nextAttemptAt - before;
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(5_000 * 2 ** (attempt - 1));
      clock.set(email!.nextAttemptAt);
    }
    expect(await run()).toBe(1);
    const failed = await fp.emails.get(id);
    expect(failed.status).toBe("failed");
    const events = await fp.emails.events(id);
    expect(events.map((e) => e.type)).toEqual(["queued", ...Array(7).fill("delivery_delayed"), "failed"]);
    expect(events.at(-1)!.detail).toMatchObject({ attempts: 8, reason: "retry budget spent" });
    expect(String(events.at(-1)!.detail!.error)).toMatch(/ECONNECTION|ESOCKET|ECONNREFUSED/);
    expect(await run()).toBe(0);
  });
});
