import nodemailer from "nodemailer";
import { afterEach, beforeEach, expect } from "vitest";
import { nodemailerTransport } from "../../../adapters/nodemailer/index.js";
import { createFlagpost, type Flagpost, type FlagpostOptions } from "../../../src/flagpost.js";
import { silentLogger } from "../../../src/ports/logger.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import { uuidv7 } from "../../../src/ids.js";
import { type FakeClock, fakeClock } from "../../support/fake-clock.js";
import { type SmtpSink, startSmtpSink } from "../../support/smtp-sink.js";

/**
 * A flagpost sending for real through nodemailer to an SMTP sink on 127.0.0.1 (the "next hop"),
 * on the storage given, with a fake clock: what the report tests send emails with and read
 * webhooks from. Register inside a describe; the getters read the current test's instances.
 */
export function reportHarness(storage: () => Storage, options: Partial<FlagpostOptions> = {}) {
  let sink: SmtpSink;
  let fp: Flagpost;
  let clock: FakeClock;

  beforeEach(async () => {
    sink = await startSmtpSink();
    clock = fakeClock(Date.now());
    const transport = nodemailerTransport(
      nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
      { closeTransporter: true },
    );
    fp = createFlagpost({
      storage: storage(),
      transport,
      clock,
      logger: silentLogger,
      ...options,
      emailWorker: { autoStart: false, ...options.emailWorker },
    });
    await fp.ready();
  });
  afterEach(async () => {
    await fp.close();
    await sink.close();
  });

  return {
    get fp() {
      return fp;
    },
    get sink() {
      return sink;
    },
    get clock() {
      return clock;
    },
    /** Sends one email through the worker and the sink; answers its id once it is `sent`. */
    async sent(to: string | string[], status = "sent"): Promise<string> {
      const { id } = await fp.emails.send({ from: "Acme <hello@acme.example>", to, subject: "Hi", text: "Hello" });
      expect(await fp.emails.worker!.runOnce()).toBe(1);
      expect((await fp.emails.get(id)).status).toBe(status);
      clock.advance(1000);
      return id;
    },
    /** Subscribes an endpoint to every email and suppression event; answers how to read what it got. */
    async subscribe(): Promise<() => Promise<{ type: string; data: Record<string, unknown> }[]>> {
      const id = uuidv7();
      await fp.storage.webhooks.insertWebhook({
        id,
        endpoint: "https://hooks.example.com/in",
        events: ["email.delivered", "email.bounced", "email.complained", "email.delivery_delayed", "suppression.added"],
        status: "enabled",
        secret: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0",
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      return async () => {
        const deliveries = await fp.storage.webhookDeliveries.listDeliveries(id, { limit: 100 });
        const events = [];
        for (const d of deliveries.reverse())
          events.push((await fp.storage.webhookDeliveries.getDelivery(id, d.eventId))!.event);
        return events as { type: string; data: Record<string, unknown> }[];
      };
    },
  };
}
