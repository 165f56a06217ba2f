import nodemailer from "nodemailer";
import { Resend } from "resend";
import { afterEach, beforeEach, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { startApp, type TestApp } from "../support/servers.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { describeEachStorage } from "../support/storage-backends.js";

/**
 * The official `resend` SDK (6.x) as a real client of the real HTTP server. The SDK reads
 * RESEND_BASE_URL when a client is constructed (or takes `{ baseUrl }`), sends
 * `Authorization: Bearer`, `User-Agent: resend-node:<version>`, JSON bodies, `Idempotency-Key`
 * from the `idempotencyKey` option and `x-batch-validation` on batches; it returns the parsed
 * body as `data` on 2xx and the parsed body as `error` otherwise.
 */
describeEachStorage("the resend SDK against flagpost", (storage: () => Storage) => {
  let app: TestApp;
  let sink: SmtpSink;
  let resend: Resend;

  beforeEach(async () => {
    sink = await startSmtpSink();
    const transport = nodemailerTransport(
      nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
    );
    app = await startApp({ storage: storage(), transport, emailWorker: { autoStart: false } });
    resend = new Resend(app.key, { baseUrl: `${app.url}/v1` });
  });
  afterEach(async () => {
    await app.close();
    await sink.close();
  });

  it("emails.send, then emails.get shows the true status once the worker sent it", async () => {
    const sent = await resend.emails.send({
      from: "Acme <onboarding@example.com>",
      to: ["delivered@example.org"],
      cc: "cc@example.org",
      replyTo: "support@example.com",
      subject: "Hello World",
      html: "<strong>It works!</strong>",
      text: "It works!",
      tags: [{ name: "category", value: "confirm_email" }],
      headers: { "X-Entity-Ref-ID": "123456789" },
      attachments: [{ filename: "invoice.txt", content: Buffer.from("total: 42") }],
    });
    expect(sent.error).toBeNull();
    const id = sent.data!.id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const queued = await resend.emails.get(id);
    expect(queued.error).toBeNull();
    expect(queued.data).toMatchObject({
      object: "email",
      id,
      to: ["delivered@example.org"],
      cc: ["cc@example.org"],
      reply_to: ["support@example.com"],
      last_event: "queued",
    });

    expect(await app.fp.emails.worker!.runOnce()).toBe(1);
    const after = await resend.emails.get(id);
    expect(after.data).toMatchObject({
      last_event: "sent",
      subject: "Hello World",
      html: "<strong>It works!</strong>",
    });
    const mail = sink.received[0]!.parsed;
    expect(mail.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([["invoice.txt", "total: 42"]]);
    expect(mail.headers.get("x-entity-ref-id")).toBe("123456789");
  });

  it("batch.send, strict and permissive", async () => {
    const batch = await resend.batch.send([
      { from: "a@example.com", to: "x@example.org", subject: "1", text: "one" },
      { from: "a@example.com", to: ["y@example.org"], subject: "2", html: "<p>two</p>" },
    ]);
    expect(batch.error).toBeNull();
    expect(batch.data!.data).toHaveLength(2);
    for (const { id } of batch.data!.data) expect((await resend.emails.get(id)).data?.last_event).toBe("queued");

    const permissive = await resend.batch.send(
      [
        { from: "a@example.com", to: "x@example.org", subject: "ok", text: "one" },
        { from: "a@example.com", to: "not-an-address", subject: "bad", text: "two" },
      ],
      { batchValidation: "permissive" },
    );
    expect(permissive.error).toBeNull();
    expect(permissive.data!.data).toHaveLength(1);
    expect(permissive.data!.errors).toEqual([
      { index: 1, message: '"to" must be an email address such as "ann@example.com" or "Ann <ann@example.com>"' },
    ]);

    const strict = await resend.batch.send([
      { from: "a@example.com", to: "not-an-address", subject: "bad", text: "x" },
    ]);
    expect(strict.data).toBeNull();
    expect(strict.error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: expect.stringMatching(/^"0\.to" /),
    });
  });

  it("surfaces errors as { error: { statusCode, name, message } }", async () => {
    const invalid = await resend.emails.send({ from: "a@example.com", to: [], subject: "x", text: "y" });
    expect(invalid).toMatchObject({
      data: null,
      error: { statusCode: 422, name: "validation_error", message: '"to" must hold 1 to 50 addresses' },
    });

    const unsupported = await resend.emails.send({
      from: "a@example.com",
      to: "b@example.org",
      subject: "x",
      text: "y",
      topicId: "news",
    });
    expect(unsupported.error).toEqual({
      statusCode: 422,
      name: "validation_error",
      message: '"topic_id" is not a known field',
    });

    const missing = await resend.emails.get("0197ffff-0000-7000-8000-000000000000");
    expect(missing.error).toMatchObject({ statusCode: 404, name: "not_found" });

    const stranger = await new Resend("fp_not_a_key", { baseUrl: `${app.url}/v1` }).emails.get("x");
    expect(stranger.error).toMatchObject({ statusCode: 403, name: "invalid_api_key" });
  });

  it("passes Idempotency-Key through the SDK option", async () => {
    const payload = { from: "a@example.com", to: "b@example.org", subject: "once", text: "only once" };
    const first = await resend.emails.send(payload, { idempotencyKey: "welcome/user-1" });
    const second = await resend.emails.send(payload, { idempotencyKey: "welcome/user-1" });
    expect(second.data).toEqual(first.data);
    const changed = await resend.emails.send({ ...payload, subject: "twice?" }, { idempotencyKey: "welcome/user-1" });
    expect(changed.error).toMatchObject({ statusCode: 409, name: "invalid_idempotent_request" });
    expect(await app.fp.emails.worker!.runOnce()).toBe(1);
    expect(sink.received).toHaveLength(1);
  });

  it("reads RESEND_BASE_URL when the client is constructed", async () => {
    const saved = process.env.RESEND_BASE_URL;
    process.env.RESEND_BASE_URL = `${app.url}/v1`;
    const fromEnv = new Resend(app.key);
    if (saved === undefined) delete process.env.RESEND_BASE_URL;
    else process.env.RESEND_BASE_URL = saved;
    const sent = await fromEnv.emails.send({ from: "a@example.com", to: "b@example.org", subject: "env", text: "x" });
    expect(sent.error).toBeNull();
    expect((await app.fp.emails.get(sent.data!.id)).subject).toBe("env");
  });
});
