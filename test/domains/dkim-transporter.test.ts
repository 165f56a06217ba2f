import nodemailer from "nodemailer";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { type OutgoingMessage, TransportError } from "../../src/ports/transport.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { DOMAIN, dkim, publicKey, verdict } from "./support/dkim-fixture.js";

/**
 * Signed mail through a real nodemailer transporter: signed in sendMail's own pipeline, so the
 * transporter's defaults are part of the signed message; never sent when it cannot be signed;
 * and through a stand-in with sendMail only, handed over composed and signed. Each case runs with
 * a signing thread and with none (the event loop and libuv's pool), docs/domains.md "Signing".
 */

/** An email from the signing domain; `signing` null leaves it unsigned. */
function message(id: string, signing: OutgoingMessage["dkim"] | null = dkim): OutgoingMessage {
  return {
    id,
    messageId: `<${id}@${DOMAIN}>`,
    date: new Date(),
    from: { name: "Ann", address: `ann@${DOMAIN}`, domain: DOMAIN },
    to: [{ address: "bob@example.org", domain: "example.org" }],
    cc: [],
    bcc: [],
    replyTo: [],
    recipients: ["bob@example.org"],
    subject: "Hello",
    headers: { "X-Entity-Ref": id },
    text: "Hi Bob,\n\nsee you.\n",
    html: "<p>Hi Bob,</p><p>see you.</p>",
    attachments: [],
    ...(signing ? { dkim: signing } : {}),
  };
}

/** The h= names of the message's DKIM-Signature, unfolded. */
function signedNames(raw: string): string[] {
  const field = /^DKIM-Signature:(.*?)\r\n(?![ \t])/s.exec(raw)?.[1] ?? "";
  return (/ h=([^;]*);/.exec(field.replace(/\r\n/g, ""))?.[1] ?? "").split(":");
}

describe.each([
  { signingThreads: 1, where: "in a signing thread" },
  { signingThreads: 0, where: "on the event loop and libuv's pool" },
])("signed mail through a nodemailer transporter, $where", ({ signingThreads }) => {
  let sink: SmtpSink;
  let transporters: { close(): void }[] = [];
  beforeEach(async () => (sink = await startSmtpSink()));
  afterEach(async () => {
    for (const t of transporters) t.close();
    transporters = [];
    await sink.close();
  });
  const smtp = (defaults?: Parameters<typeof nodemailer.createTransport>[1]) => {
    const t = nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, pool: true, ignoreTLS: true }, defaults);
    transporters.push(t);
    return t;
  };

  it("carries the transporter's defaults (default headers, X-Mailer), signed over the same header list", async () => {
    const transport = nodemailerTransport(smtp({ xMailer: "acme-mailer 2.1", headers: { "X-Campaign": "spring" } }), {
      signingThreads,
    });
    await transport.send(message("e1"));
    await transport.send(message("e2", null));
    await sink.waitFor(2);
    const [signed, unsigned] = sink.received.map((m) => m.raw.toString("latin1"));
    for (const raw of [signed!, unsigned!]) {
      expect(raw).toMatch(/\r\nX-Mailer: acme-mailer 2\.1\r\n/);
      expect(raw).toMatch(/\r\nX-Campaign: spring\r\n/);
    }
    expect(signed).toMatch(/^DKIM-Signature: /);
    expect(unsigned).not.toMatch(/DKIM-Signature/i);
    expect(await verdict(sink.received[0]!.raw)).toBe("pass");
    expect(signedNames(signed!)).toEqual([
      "from",
      "to",
      "subject",
      "date",
      "message-id",
      "mime-version",
      "content-type",
    ]);
  });

  it("does not send a message its key cannot sign over a pooled connection; the pool goes on signing", async () => {
    const transport = nodemailerTransport(smtp(), { signingThreads });
    // A public key cannot make a signature: node:crypto refuses it.
    const error = await transport.send(message("e1", { ...dkim, privateKey: publicKey })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ kind: "transient", code: undefined, message: expect.stringContaining(DOMAIN) });
    await transport.send(message("e2"));
    await sink.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sink.received.map((m) => m.messageId)).toEqual([`<e2@${DOMAIN}>`]);
    expect(await verdict(sink.received[0]!.raw)).toBe("pass");
  });

  it("hands a transporter without plugins (sendMail only) the message composed and signed", async () => {
    const real = smtp();
    const given: Record<string, unknown>[] = [];
    const transport = nodemailerTransport(
      {
        sendMail: (mail) => {
          given.push(mail as Record<string, unknown>);
          return real.sendMail(mail);
        },
      },
      { signingThreads },
    );
    await transport.send(message("e1"));
    await sink.waitFor(1);
    expect(Buffer.isBuffer(given[0]!.raw)).toBe(true);
    expect(await verdict(sink.received[0]!.raw)).toBe("pass");
  });
});

describe("the signingThreads option", () => {
  it("takes a whole number of 0 or more and refuses anything else, naming the option", () => {
    const transporter = { sendMail: async () => ({}) };
    for (const bad of [-1, 1.5, Number.NaN])
      expect(() => nodemailerTransport(transporter, { signingThreads: bad })).toThrow(/signingThreads must be/);
    expect(() => nodemailerTransport(transporter, { signingThreads: 0 })).not.toThrow();
  });
});
