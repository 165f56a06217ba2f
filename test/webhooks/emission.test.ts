import nodemailer from "nodemailer";
import type { EmailBouncedEvent, EmailDeliveredEvent, EmailDeliveryDelayedEvent, EmailSentEvent } from "resend";
import { afterEach, beforeEach, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { DomainEvent } from "../../src/ports/storage/domain-events.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { isoFromMs } from "../../src/time.js";
import { WEBHOOK_EVENT_TYPES } from "../../src/webhooks/event-types.js";
import { type FakeClock, fakeClock } from "../support/fake-clock.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { describeEachStorage } from "../support/storage-backends.js";

/**
 * The services emit domain events with their writes: flag writes and email status changes (sent by
 * the outbox worker over real SMTP, or reported) each leave one delivery for an endpoint
 * subscribed to everything, with the payload the resend SDK's types describe.
 */

const HOOK = "01980000-0000-7000-8000-00000000aaaa";

describeEachStorage("domain events from the services", (storage: () => Storage) => {
  let sink: SmtpSink;
  let clock: FakeClock;
  let fp: Flagpost;

  beforeEach(async () => {
    sink = await startSmtpSink();
    clock = fakeClock();
    const transport = nodemailerTransport(
      nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
      { name: "smtp", closeTransporter: true },
    );
    fp = createFlagpost({
      storage: storage(),
      clock,
      logger: silentLogger,
      transport,
      emailWorker: { autoStart: false },
      // Events are looked at where they are stored; nothing is sent.
      webhooks: { autoStart: false },
    });
    await fp.ready();
    const at = clock.now();
    await fp.storage.webhooks.insertWebhook({
      id: HOOK,
      endpoint: "https://hooks.example.com/",
      events: [...WEBHOOK_EVENT_TYPES],
      status: "enabled",
      secret: "whsec_AAAA",
      createdAt: at,
      updatedAt: at,
    });
  });
  afterEach(async () => {
    await fp.close();
    await sink.close();
  });

  /** The events stored for the endpoint, oldest first. */
  async function emitted(): Promise<DomainEvent[]> {
    const deliveries = await fp.storage.webhookDeliveries.listDeliveries(HOOK, { limit: 100 });
    const events = await Promise.all(
      deliveries.map(async (d) => (await fp.storage.webhookDeliveries.getDelivery(HOOK, d.eventId))!.event),
    );
    return events.reverse();
  }
  const payload = (e: DomainEvent) => ({ type: e.type, created_at: isoFromMs(e.createdAt), data: e.data });

  it("flag.created, flag.updated and flag.deleted carry the flag as stored", async () => {
    const created = await fp.flags.create({ key: "checkout", description: "new checkout" });
    clock.advance(1000);
    const updated = await fp.flags.update("checkout", { enabled: true });
    clock.advance(1000);
    await fp.flags.delete("checkout");
    const events = await emitted();
    expect(events.map((e) => e.type)).toEqual(["flag.created", "flag.updated", "flag.deleted"]);
    // The payload carries the flag as the HTTP API shows it: times in ISO 8601.
    const wire = (flag: typeof created) => ({
      ...flag,
      createdAt: new Date(flag.createdAt).toISOString(),
      updatedAt: new Date(flag.updatedAt).toISOString(),
    });
    expect(events.map((e) => e.data)).toEqual([
      wire(created),
      { ...wire(updated), changes: [{ path: "enabled", before: false, after: true }], actor: { type: "in_process" } },
      wire(updated),
    ]);
    expect(events[1]!.createdAt).toBe(updated.updatedAt);
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });

  it("email.sent from the worker, email.delivered from a report, with the resend SDK's payload", async () => {
    const { id } = await fp.emails.send({
      from: "Flagpost <hello@example.com>",
      to: ["ann@example.org"],
      subject: "Hi",
      text: "Hello",
      tags: [{ name: "kind", value: "welcome" }],
    });
    await fp.emails.worker!.runOnce();
    const email = await fp.emails.get(id);
    clock.advance(5000);
    await fp.emails.recordEvent(id, { type: "delivered" });
    const [sent, delivered] = await emitted();
    const data = {
      created_at: email.created_at,
      email_id: id,
      message_id: email.message_id,
      from: "Flagpost <hello@example.com>",
      to: ["ann@example.org"],
      subject: "Hi",
      tags: { kind: "welcome" },
    };
    expect(payload(sent!)).toEqual({ type: "email.sent", created_at: email.sent_at!, data } satisfies EmailSentEvent);
    expect(payload(delivered!)).toEqual({
      type: "email.delivered",
      created_at: new Date(clock.now()).toISOString(),
      data,
    } satisfies EmailDeliveredEvent);
  });

  it("email.delivery_delayed on a 4xx, email.bounced with its bounce on a 5xx", async () => {
    sink.onRecipient = (address, attempt) =>
      address.startsWith("later") && attempt === 1
        ? { code: 451, message: "try later" }
        : address.startsWith("gone")
          ? { code: 550, message: "5.1.1 <gone@example.org>: no such user" }
          : undefined;
    const later = await fp.emails.send({ from: "hello@example.com", to: "later@example.org", subject: "A", text: "a" });
    const gone = await fp.emails.send({ from: "hello@example.com", to: "gone@example.org", subject: "B", text: "b" });
    await fp.emails.worker!.runOnce();
    const events = await emitted();
    const byEmail = new Map(events.map((e) => [e.data.email_id, payload(e)]));
    const delayed = byEmail.get(later.id) as unknown as EmailDeliveryDelayedEvent;
    expect(delayed).toMatchObject({
      type: "email.delivery_delayed",
      data: { email_id: later.id, to: ["later@example.org"], subject: "A" },
    });
    const bounced = byEmail.get(gone.id) as unknown as EmailBouncedEvent;
    expect(bounced).toMatchObject({
      type: "email.bounced",
      data: {
        email_id: gone.id,
        bounce: {
          type: "Permanent",
          subType: "NoEmail",
          reason: "userunknown",
          recipients: [{ email: "gone@example.org", status: "5.1.1", reason: "userunknown" }],
        },
      },
    });
    expect(bounced.data.bounce.message).toMatch(/550/);
  });
});
