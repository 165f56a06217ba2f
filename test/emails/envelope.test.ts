import nodemailer from "nodemailer";
import { afterEach, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { type OutboxWorkerOptions, suppressionWrites } from "../../src/emails/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { uuidv7 } from "../../src/ids.js";
import { type SmtpSink, type SmtpSinkOptions, startSmtpSink } from "../support/smtp-sink.js";
import { describeEachStorage } from "../support/storage-backends.js";

/**
 * What reaches the SMTP server, over real SMTP on 127.0.0.1: the VERP return path and the DSN
 * request with a bounce domain, and an envelope without the suppressed recipients.
 */
describeEachStorage("the envelope", (storage: () => Storage) => {
  let sink: SmtpSink | undefined;
  let fp: Flagpost | undefined;

  afterEach(async () => {
    await fp?.close();
    await sink?.close();
    fp = undefined;
    sink = undefined;
  });

  async function start(worker: OutboxWorkerOptions = {}, sinkOptions: SmtpSinkOptions = {}) {
    sink = await startSmtpSink(sinkOptions);
    const transport = nodemailerTransport(
      nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
      { closeTransporter: true },
    );
    fp = createFlagpost({
      storage: storage(),
      transport,
      logger: silentLogger,
      emailWorker: { autoStart: false, ...worker },
    });
    await fp.ready();
    return { sink, fp };
  }

  it("uses bounces+<id>-<tag>@<bounce domain> as MAIL FROM and asks for DSNs where the server offers them", async () => {
    const { sink, fp } = await start({ bounceDomain: "Bounces.Acme.example" });
    const { id } = await fp.emails.send({
      from: "Acme <hello@acme.example>",
      to: ["ann@example.org", "Bob <bob@example.org>"],
      subject: "Hi",
      text: "Hello",
    });
    await fp.emails.worker!.runOnce();
    const { envelope, parsed } = sink.received[0]!;
    // The tag is 10 base32 characters of an HMAC of the id (test/emails/verp-tags.test.ts).
    expect(envelope.from).toMatch(new RegExp(`^bounces\\+${id}-[a-z2-7]{10}@bounces\\.acme\\.example$`));
    expect(envelope.to).toEqual(["ann@example.org", "bob@example.org"]);
    expect(envelope.dsn).toEqual({
      ret: "HDRS",
      envid: id,
      recipients: [
        { address: "ann@example.org", notify: ["SUCCESS", "FAILURE", "DELAY"] },
        { address: "bob@example.org", notify: ["SUCCESS", "FAILURE", "DELAY"] },
      ],
    });
    // The header fields stay the sender's.
    expect(parsed.from?.value).toEqual([{ name: "Acme", address: "hello@acme.example" }]);
    expect((await fp.emails.get(id)).status).toBe("sent");
  });

  it("sends VERP without DSN parameters to a server that does not offer DSN", async () => {
    const { sink, fp } = await start({ bounceDomain: "bounces.acme.example" }, { hideDSN: true });
    const { id } = await fp.emails.send({
      from: "hello@acme.example",
      to: "ann@example.org",
      subject: "Hi",
      text: "x",
    });
    await fp.emails.worker!.runOnce();
    expect(sink.received[0]!.envelope).toEqual({
      from: expect.stringMatching(new RegExp(`^bounces\\+${id}-[a-z2-7]{10}@bounces\\.acme\\.example$`)),
      to: ["ann@example.org"],
      dsn: { recipients: [{ address: "ann@example.org" }] },
    });
  });

  it("keeps the sender as MAIL FROM and asks for no DSN without a bounce domain", async () => {
    const { sink, fp } = await start();
    await fp.emails.send({ from: "Acme <hello@acme.example>", to: "ann@example.org", subject: "Hi", text: "x" });
    await fp.emails.worker!.runOnce();
    expect(sink.received[0]!.envelope).toEqual({
      from: "hello@acme.example",
      to: ["ann@example.org"],
      dsn: { recipients: [{ address: "ann@example.org" }] },
    });
  });

  it("refuses a bounce domain that is not a domain name", async () => {
    expect(() =>
      createFlagpost({
        storage: storage(),
        transport: { name: "unused", send: () => Promise.reject(new Error("unused")) },
        emailWorker: { bounceDomain: "not a domain" },
      }),
    ).toThrow(/bounceDomain must be a domain name/);
  });

  it("leaves suppressed recipients out of the envelope, not out of the header fields", async () => {
    const { sink, fp } = await start();
    const at = Date.now();
    await suppressionWrites(fp.storage).add(
      [{ id: uuidv7(), email: "bob@example.org", origin: "manual", createdAt: at }],
      at,
    );
    const { id } = await fp.emails.send({
      from: "hello@acme.example",
      to: ["ann@example.org", "BOB@Example.org"],
      cc: "cy@example.org",
      subject: "Hi",
      text: "x",
    });
    await fp.emails.worker!.runOnce();
    const { envelope, parsed } = sink.received[0]!;
    expect(envelope.to).toEqual(["ann@example.org", "cy@example.org"]);
    const to = parsed.to && !Array.isArray(parsed.to) ? parsed.to.value.map((a) => a.address) : [];
    expect(to.map((a) => a?.toLowerCase())).toEqual(["ann@example.org", "bob@example.org"]);
    expect(await fp.emails.get(id)).toMatchObject({ status: "sent", last_event: "sent" });
    expect((await fp.emails.events(id)).at(-1)?.detail).toMatchObject({
      accepted: ["ann@example.org", "cy@example.org"],
      suppressed: ["bob@example.org"],
    });
  });

  it("fails an email whose every recipient is suppressed without touching the transport", async () => {
    const { sink, fp } = await start();
    const hook = uuidv7();
    await fp.storage.webhooks.insertWebhook({
      id: hook,
      endpoint: "https://hooks.example.com/in",
      events: ["email.suppressed", "email.failed", "email.scheduled"],
      status: "enabled",
      secret: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0",
      createdAt: Date.now(),
      updatedAt: Date.now(),
    });
    const at = Date.now();
    await suppressionWrites(fp.storage).add(
      ["ann@example.org", "bob@example.org"].map((email) => ({
        id: uuidv7(),
        email,
        origin: "bounce" as const,
        createdAt: at,
      })),
      at,
    );
    const { id } = await fp.emails.send({
      from: "hello@acme.example",
      to: "Ann@example.org",
      bcc: "bob@EXAMPLE.org",
      subject: "Hi",
      text: "x",
    });
    expect(await fp.emails.worker!.runOnce()).toBe(1);
    expect(sink.received).toEqual([]);
    expect(await fp.emails.get(id)).toMatchObject({
      status: "failed",
      failure_reason: "suppressed",
      last_event: "suppressed",
    });
    expect((await fp.emails.events(id)).at(-1)).toMatchObject({
      type: "suppressed",
      detail: { suppressed: ["ann@example.org", "bob@example.org"] },
    });
    const deliveries = await fp.storage.webhookDeliveries.listDeliveries(hook, { limit: 10 });
    expect(deliveries.map((d) => d.eventType)).toEqual(["email.suppressed"]);
    const { event } = (await fp.storage.webhookDeliveries.getDelivery(hook, deliveries[0]!.eventId))!;
    expect(event.data).toMatchObject({
      email_id: id,
      suppressed: { type: "OnSuppressionList", message: "every recipient is on the suppression list" },
    });
  });

  it("names why a failed email failed", async () => {
    const { sink, fp } = await start({ retry: { maxAttempts: 1 } });
    sink.onData = () => ({ code: 554, message: "5.7.1 message refused" });
    const refused = await fp.emails.send({
      from: "hello@acme.example",
      to: "ann@example.org",
      subject: "1",
      text: "x",
    });
    await fp.emails.worker!.runOnce();
    expect(await fp.emails.get(refused.id)).toMatchObject({ status: "failed", failure_reason: "permanent_error" });
    sink.onData = () => ({ code: 451, message: "4.3.0 try later" });
    const later = await fp.emails.send({ from: "hello@acme.example", to: "ann@example.org", subject: "2", text: "x" });
    await fp.emails.worker!.runOnce();
    expect(await fp.emails.get(later.id)).toMatchObject({ status: "failed", failure_reason: "retry_budget_spent" });
  });
});
