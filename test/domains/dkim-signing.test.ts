import { authenticate } from "mailauth";
import nodemailer from "nodemailer";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { splitTxt } from "../../src/domains/dns-records.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { startTestDns } from "./support/test-dns.js";

/**
 * Issue 28, signing: mail from a verified domain, sent through the outbox worker and nodemailer to
 * a real SMTP server on 127.0.0.1, is checked by an independent verifier (mailauth) against a DNS
 * server on 127.0.0.1 that serves the records flagpost asked the domain to publish: DKIM, SPF of
 * the return-path host (ip4:127.0.0.1, the sink's client) and DMARC.
 */

let dns: Awaited<ReturnType<typeof startTestDns>>;
beforeAll(async () => (dns = await startTestDns()));
afterAll(() => dns.close());

let serial = 0;
/** A fresh domain name per test: the DNS zone and PostgreSQL/MariaDB tables are shared. */
const freshDomain = () => `s${Date.now().toString(36)}${(serial++).toString(36)}.example.com`;

/** mailauth's verdict on a message as the sink received it from 127.0.0.1. */
function verify(message: ReceivedMessage, raw: Buffer | string = message.raw) {
  return authenticate(raw, {
    ip: "127.0.0.1",
    helo: "localhost",
    sender: message.envelope.from,
    mta: "sink.flagpost.test",
    // mailauth's type names TXT answers only; it asks MX and A through the same function.
    resolver: (name: string, type: string) => dns.resolver.resolve(name, type) as Promise<string[] | string[][]>,
  });
}

/** The DMARC verdict (mailauth answers false when it did not check). */
function dmarcOf(result: Awaited<ReturnType<typeof verify>>) {
  if (!result.dmarc) throw new Error("mailauth did not check DMARC");
  return result.dmarc;
}

/** The `h=` list of the message's DKIM-Signature, lower-cased. */
function signedFields(raw: Buffer): string[] {
  const header = raw
    .toString("latin1")
    .split("\r\n\r\n")[0]!
    .replace(/\r\n[ \t]+/g, " ");
  const line = header.split("\r\n").find((l) => l.toLowerCase().startsWith("dkim-signature:"));
  const h = /\bh=([^;]+)/.exec(line ?? "")?.[1] ?? "";
  return h.split(":").map((field) => field.trim().toLowerCase());
}

describeEachStorage("DKIM signing of mail from verified domains", (storage: () => Storage, backend) => {
  // Its own block: an enabled database backend registers its tests at the file's top level.
  describe(backend, () => {
    let sink: SmtpSink;
    let fp: Flagpost;

    beforeEach(async () => {
      sink = await startSmtpSink();
      const transport = nodemailerTransport(
        nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
        { closeTransporter: true },
      );
      fp = createFlagpost({
        storage: storage(),
        transport,
        logger: silentLogger,
        secretKey: "dkim-signing-test-secret",
        emailWorker: { autoStart: false },
        domains: { resolver: dns.resolver, mxHost: "mx.flagpost.test", spf: "ip4:127.0.0.1", autoStart: false },
      });
      await fp.ready();
    });
    afterEach(async () => {
      await fp.close();
      await sink.close();
    });

    /** Adds the domain, publishes every record it answers (DMARC included) and verifies it. */
    async function verifiedDomain(name: string) {
      const domain = await fp.domains.create({ name });
      for (const r of domain.records) {
        const host = `${r.name}.${name}`;
        if (r.type === "MX") dns.zone.mx.set(host, [{ exchange: r.value, priority: r.priority ?? 10 }]);
        else dns.zone.txt.set(host, [splitTxt(r.value)]);
      }
      await fp.domains.verify(domain.id);
      expect((await fp.domains.get(domain.id)).status).toBe("verified");
      return domain;
    }

    async function sendOne(from: string, extra: Record<string, unknown> = {}): Promise<ReceivedMessage> {
      const before = sink.received.length;
      const { id } = await fp.emails.send({
        from,
        to: "ann@example.org",
        subject: "Hello",
        text: "Hi Ann\n",
        ...extra,
      });
      expect(await fp.emails.worker!.runOnce()).toBe(1);
      await sink.waitFor(before + 1);
      const message = sink.received[before]!;
      expect(message.messageId).toContain(id);
      return message;
    }

    it("signs with the domain's key over the provider header set; dkim, spf and dmarc pass, aligned", async () => {
      const name = freshDomain();
      const domain = await verifiedDomain(name);
      const message = await sendOne(`Acme <news@${name}>`, {
        cc: "bob@example.org",
        reply_to: "help@example.org",
        html: "<p>Hi Ann</p>",
        unsubscribe: "https://acme.example.com/unsubscribe?u=ann",
      });
      // VERP on the domain's own return-path host, keeping the tagged local part.
      const emailId = /^<([^@]+)@/.exec(message.messageId!)![1]!;
      expect(message.envelope.from).toMatch(new RegExp(`^bounces\\+${emailId}-[a-z2-7]{10}@bounces\\.${name}$`));

      const result = await verify(message);
      expect(result.dkim.results[0]).toMatchObject({
        signingDomain: name,
        selector: domain.records[0]!.name.split(".")[0],
        algo: "rsa-sha256",
        format: "relaxed/relaxed",
        status: { result: "pass", aligned: name },
      });
      expect(result.spf).toMatchObject({ status: { result: "pass" }, domain: `bounces.${name}` });
      expect(result.dmarc).toMatchObject({ status: { result: "pass" }, alignment: { dkim: { result: name } } });
      // Relaxed SPF alignment too: the return-path host is under the From domain.
      expect(dmarcOf(result).alignment.spf.result).toBe(`bounces.${name}`);
      expect(signedFields(message.raw)).toEqual(
        expect.arrayContaining([
          "from",
          "to",
          "cc",
          "reply-to",
          "subject",
          "date",
          "message-id",
          "mime-version",
          "content-type",
          "list-unsubscribe",
          "list-unsubscribe-post",
        ]),
      );
    });

    it("a message altered after signing fails DKIM", async () => {
      const name = freshDomain();
      await verifiedDomain(name);
      const message = await sendOne(`news@${name}`);
      const raw = message.raw.toString("latin1");
      const subject = await verify(message, raw.replace("Subject: Hello", "Subject: Hellp"));
      expect(subject.dkim.results[0]?.status.result).toBe("fail");
      const body = await verify(message, raw.replace("Hi Ann", "Hi Bob"));
      expect(body.dkim.results[0]?.status.result).not.toBe("pass");
      // DMARC may still pass on aligned SPF, but no longer through DKIM.
      expect(dmarcOf(body).alignment.dkim.result).toBeFalsy();
    });

    it("does not sign mail from a domain that is added but not verified, nor from an unknown one", async () => {
      const pending = freshDomain();
      await fp.domains.create({ name: pending });
      for (const from of [`news@${pending}`, `news@${freshDomain()}`]) {
        const message = await sendOne(from);
        expect(signedFields(message.raw)).toEqual([""]);
        expect(message.envelope.from).toBe(from); // no bounce domain configured: today's envelope
        expect((await verify(message)).dkim.results[0]?.status.result).toBe("none");
      }
    });

    it("stops signing once the domain fails its recheck, and once it is removed", async () => {
      const name = freshDomain();
      const domain = await verifiedDomain(name);
      expect(signedFields((await sendOne(`news@${name}`)).raw)).toContain("from");
      // The DKIM record is taken down: the recheck finds it, and the next mail goes unsigned.
      dns.zone.txt.delete(`${domain.records[0]!.name}.${name}`);
      await fp.domains.recheck(0);
      expect((await fp.domains.get(domain.id)).status).toBe("failed");
      expect(signedFields((await sendOne(`news@${name}`)).raw)).toEqual([""]);

      const other = freshDomain();
      const removed = await verifiedDomain(other);
      expect(signedFields((await sendOne(`news@${other}`)).raw)).toContain("from");
      await fp.domains.remove(removed.id);
      const after = await sendOne(`news@${other}`);
      expect(signedFields(after.raw)).toEqual([""]);
      expect(after.envelope.from).toBe(`news@${other}`);
    });
  });
});
