import nodemailer from "nodemailer";
import { Resend } from "resend";
import { afterEach, beforeEach, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { type FakeClock, fakeClock } from "../support/fake-clock.js";
import { startApp, type TestApp } from "../support/servers.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { describeEachStorage } from "../support/storage-backends.js";

/**
 * The resend SDK's `emails.list`, `emails.update` and `emails.cancel` against the real HTTP
 * server, on every storage, with a real SMTP sink behind the outbox worker.
 */
describeEachStorage("the resend SDK's email list, update and cancel against flagpost", (storage: () => Storage) => {
  let app: TestApp;
  let sink: SmtpSink;
  let resend: Resend;
  let clock: FakeClock;

  beforeEach(async () => {
    sink = await startSmtpSink();
    clock = fakeClock(Date.now());
    const transport = nodemailerTransport(
      nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
      { closeTransporter: true },
    );
    app = await startApp({ storage: storage(), transport, clock, emailWorker: { autoStart: false } });
    resend = new Resend(app.key, { baseUrl: `${app.url}/v1` });
  });
  afterEach(async () => {
    await app.close();
    await sink.close();
  });

  const inOneHour = () => new Date(clock.now() + 3_600_000).toISOString();

  it("emails.list: newest first, without bodies, paged by limit, after and before", async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const sent = await resend.emails.send({
        from: "Acme <hello@acme.example>",
        to: `u${n}@example.org`,
        cc: n === 1 ? "cc@example.org" : undefined,
        subject: `Hi ${n}`,
        html: "<p>body</p>",
        tags: [{ name: "n", value: String(n) }],
      });
      ids.push(sent.data!.id);
    }
    await app.fp.emails.worker!.runOnce();

    const all = await resend.emails.list();
    expect(all.error).toBeNull();
    expect(all.data).toMatchObject({ object: "list", has_more: false });
    expect(all.data!.data.map((e) => e.id)).toEqual([...ids].reverse());
    const first = all.data!.data.at(-1)!;
    expect(first).toEqual({
      id: ids[0],
      from: "Acme <hello@acme.example>",
      to: ["u1@example.org"],
      cc: ["cc@example.org"],
      subject: "Hi 1",
      status: "sent",
      created_at: expect.any(String),
      sent_at: expect.any(String),
      last_event: "sent",
      message_id: expect.stringMatching(/^<.+@acme\.example>$/),
    });
    for (const entry of all.data!.data)
      for (const field of ["html", "text", "tags", "object"]) expect(entry).not.toHaveProperty(field);

    const page = await resend.emails.list({ limit: 2 });
    expect([page.data!.data.map((e) => e.id), page.data!.has_more]).toEqual([[ids[2], ids[1]], true]);
    const next = await resend.emails.list({ limit: 2, after: ids[1]! });
    expect([next.data!.data.map((e) => e.id), next.data!.has_more]).toEqual([[ids[0]], false]);
    const back = await resend.emails.list({ limit: 1, before: ids[0]! });
    expect([back.data!.data.map((e) => e.id), back.data!.has_more]).toEqual([[ids[1]], true]);
    expect((await resend.emails.list({ limit: 0 })).error).toMatchObject({ statusCode: 422, name: "validation_error" });
  });

  it("emails.update: moves a scheduled email's time; refuses emails that are not scheduled or already sent", async () => {
    const { data } = await resend.emails.send({
      from: "hello@acme.example",
      to: "ann@example.org",
      subject: "Later",
      text: "x",
      scheduledAt: inOneHour(),
    });
    const id = data!.id;
    expect((await resend.emails.get(id)).data).toMatchObject({ last_event: "scheduled" });
    const twoHours = new Date(clock.now() + 7_200_000).toISOString();
    const updated = await resend.emails.update({ id, scheduledAt: twoHours });
    expect(updated.error).toBeNull();
    expect(updated.data).toMatchObject({ object: "email", id });
    expect((await resend.emails.get(id)).data).toMatchObject({ scheduled_at: twoHours, last_event: "scheduled" });
    clock.advance(3_600_000 + 1000);
    expect(await app.fp.emails.worker!.runOnce()).toBe(0);
    clock.advance(3_600_000);
    expect(await app.fp.emails.worker!.runOnce()).toBe(1);
    expect(sink.received).toHaveLength(1);

    const sentAlready = await resend.emails.update({ id, scheduledAt: new Date(clock.now() + 60_000).toISOString() });
    expect(sentAlready.error).toMatchObject({
      statusCode: 422,
      name: "invalid_transition",
      message: "An email that is sent cannot be rescheduled",
    });
    const now = await resend.emails.send({
      from: "hello@acme.example",
      to: "bob@example.org",
      subject: "Now",
      text: "x",
    });
    const notScheduled = await resend.emails.update({ id: now.data!.id, scheduledAt: inOneHour() });
    expect(notScheduled.error).toMatchObject({ statusCode: 422, name: "invalid_transition" });
    const past = await resend.emails.update({ id, scheduledAt: "2020-01-01T00:00:00Z" });
    expect(past.error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: '"scheduled_at" must be in the future',
    });
    const unknown = await resend.emails.update({
      id: "0190aaaa-0000-7000-8000-000000000000",
      scheduledAt: inOneHour(),
    });
    expect(unknown.error).toMatchObject({ statusCode: 404, name: "not_found" });
  });

  it("emails.cancel: a canceled scheduled email is never sent; a sent one cannot be canceled", async () => {
    const { data } = await resend.emails.send({
      from: "hello@acme.example",
      to: "ann@example.org",
      subject: "Later",
      text: "x",
      scheduledAt: inOneHour(),
    });
    const id = data!.id;
    const canceled = await resend.emails.cancel(id);
    expect(canceled.error).toBeNull();
    expect(canceled.data).toMatchObject({ object: "email", id });
    expect((await resend.emails.get(id)).data).toMatchObject({ status: "canceled", last_event: "canceled" });
    clock.advance(7_200_000);
    expect(await app.fp.emails.worker!.runOnce()).toBe(0);
    expect(sink.received).toEqual([]);
    expect((await app.fp.emails.events(id)).map((e) => e.type)).toEqual(["scheduled", "canceled"]);

    const again = await resend.emails.cancel(id);
    expect(again.error).toMatchObject({
      statusCode: 422,
      name: "invalid_transition",
      message: "An email that is canceled cannot be canceled",
    });
    const sent = await resend.emails.send({
      from: "hello@acme.example",
      to: "bob@example.org",
      subject: "Now",
      text: "x",
    });
    await app.fp.emails.worker!.runOnce();
    expect((await resend.emails.cancel(sent.data!.id)).error).toMatchObject({
      statusCode: 422,
      name: "invalid_transition",
    });
    expect((await resend.emails.cancel("0190aaaa-0000-7000-8000-000000000000")).error).toMatchObject({
      statusCode: 404,
    });
  });

  it("cancels no email a worker has claimed", async () => {
    const { data } = await resend.emails.send({
      from: "hello@acme.example",
      to: "ann@example.org",
      subject: "Soon",
      text: "x",
      scheduledAt: new Date(clock.now() + 1000).toISOString(),
    });
    clock.advance(2000);
    const hold = sink.hold();
    const sending = app.fp.emails.worker!.runOnce();
    await hold.arrived(1);
    const refused = await resend.emails.cancel(data!.id);
    expect(refused.error).toMatchObject({
      statusCode: 422,
      message: "The email is being sent and can no longer be canceled",
    });
    hold.release();
    await sending;
    expect((await resend.emails.get(data!.id)).data).toMatchObject({ last_event: "sent" });
  });
});
