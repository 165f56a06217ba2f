import nodemailer from "nodemailer";
import { afterEach, beforeEach, expect } from "vitest";
import { type InboundSmtp, startInboundSmtp } from "../../../adapters/inbound/index.js";
import { nodemailerTransport } from "../../../adapters/nodemailer/index.js";
import { createFlagpost, type Flagpost } from "../../../src/flagpost.js";
import { silentLogger } from "../../../src/ports/logger.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from "../../support/smtp-sink.js";

export const BOUNCE_DOMAIN = "bounce.acme.example";
export const FROM = "Acme <hello@acme.example>";

/**
 * The report loop over real SMTP: flagpost sends through its outbox (VERP under BOUNCE_DOMAIN) to
 * an SMTP sink on 127.0.0.1, and answers reports mailed to its inbound listener. Register inside a
 * describe; the getters read the current test's instances.
 */
export function reportLoop(storage: () => Storage) {
  let sink: SmtpSink;
  let listener: InboundSmtp;
  let fp: Flagpost;

  beforeEach(async () => {
    sink = await startSmtpSink();
    fp = createFlagpost({
      storage: storage(),
      logger: silentLogger,
      transport: nodemailerTransport(
        nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
        { name: "smtp", closeTransporter: true },
      ),
      emailWorker: { autoStart: false, bounceDomain: BOUNCE_DOMAIN },
    });
    await fp.ready();
    listener = await startInboundSmtp({
      domains: [BOUNCE_DOMAIN],
      apply: (reports) => fp.emails.applyReports(reports),
    });
  });
  afterEach(async () => {
    await listener.close();
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
    /** Sends one email through the outbox; answers it with what the sink received. */
    async sendOne(to: string | string[]): Promise<{ id: string; received: ReceivedMessage }> {
      const { id } = await fp.emails.send({ from: FROM, to, subject: "Welcome", text: "Hello" });
      expect(await fp.emails.worker!.runOnce()).toBe(1);
      expect((await fp.emails.get(id)).status).toBe("sent");
      return { id, received: sink.received.at(-1)! };
    },
    /** Mails a report to the listener, as an MTA (or a forger) would, to the address given. */
    async mailReport(to: string, raw: string): Promise<void> {
      const mta = nodemailer.createTransport({
        host: "127.0.0.1",
        port: listener.port,
        secure: false,
        ignoreTLS: true,
      });
      try {
        expect((await mta.sendMail({ envelope: { from: "", to }, raw })).response).toMatch(/^250/);
      } finally {
        mta.close();
      }
    },
  };
}
