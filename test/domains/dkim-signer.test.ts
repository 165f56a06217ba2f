import nodemailer from "nodemailer";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relaxedBody, relaxedField } from "../../adapters/nodemailer/dkim-canonical.js";
import { dkimSignatureField } from "../../adapters/nodemailer/dkim-signature.js";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { type OutgoingMessage, TransportError } from "../../src/ports/transport.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { DOMAIN, dkim, publicKey, verdict } from "./support/dkim-fixture.js";

/**
 * flagpost's DKIM signer (adapters/nodemailer/dkim-signature.ts) on messages written by hand to
 * hit the corners of relaxed canonicalization, each checked by an independent verifier
 * (mailauth) against the public key; and a message whose key cannot sign is not sent at all.
 */

function sign(message: string | Buffer): Buffer {
  const raw = Buffer.isBuffer(message) ? message : Buffer.from(message, "latin1");
  return Buffer.concat([Buffer.from(dkimSignatureField(raw, dkim), "latin1"), raw]);
}

const crlf = (lines: string[]) => lines.join("\r\n");
const utf8 = (text: string) => Buffer.from(text, "utf8").toString("latin1");

/** Each case: a message, and a change that relaxed canonicalization must not forgive. */
const CASES: { name: string; message: string; tamper: (m: string) => string }[] = [
  {
    name: "folded header fields (CRLF + SP and + HTAB), and a space before the colon",
    message: crlf([
      "From: Ann <ann@acme.example>",
      "To: bob@example.org,\r\n\tcarol@example.org",
      "Subject : a subject\r\n  folded\r\n\tover three lines",
      "",
      "Hi",
      "",
    ]),
    tamper: (m) => m.replace("three lines", "three  lines!"),
  },
  {
    name: "runs of spaces and tabs, and whitespace at line ends, in header and body",
    message: crlf(["From:   ann@acme.example \t", "Subject: \tmany   spaces\t ", "", "a  \t b   ", "c\t", ""]),
    tamper: (m) => m.replace("a  \t b", "ab"),
  },
  {
    name: "an empty body",
    message: crlf(["From: ann@acme.example", "Subject: nothing", "", ""]),
    tamper: (m) => `${m}x\r\n`,
  },
  {
    name: "a body of empty lines only, and empty lines at the end of another",
    message: crlf(["From: ann@acme.example", "Subject: blank", "", "", "", " ", ""]),
    tamper: (m) => m.replace("Subject: blank\r\n\r\n", "Subject: blank\r\n\r\nx"),
  },
  {
    name: "a body whose last line has no line end",
    message: crlf(["From: ann@acme.example", "Subject: no end", "", "last line  "]),
    tamper: (m) => `${m}more`,
  },
  {
    name: "LF line ends throughout",
    message: ["From: ann@acme.example", "Subject: unix\n folded", "", "line one ", "line two", "", ""].join("\n"),
    tamper: (m) => m.replace("line two", "line 2"),
  },
  {
    // No byte 0xA0 in the header fields: mailauth takes it for whitespace there (its relaxed
    // header form collapses JavaScript's \s over the bytes), RFC 6376 and flagpost do not (below).
    name: "8-bit UTF-8 in header fields and body; a non-breaking space is not whitespace",
    message: utf8(
      crlf(["From: Zoë Ångström <zoe@acme.example>", "Subject: Grüße aus Köln", "", "Schöne Grüße\u00a0", ""]),
    ),
    tamper: (m) => m.replace(utf8("Grüße\u00a0"), utf8("Grüße")),
  },
  {
    name: "long lines: a 998-octet body line and a 600-character header field",
    message: crlf([
      "From: ann@acme.example",
      `Subject: ${"long ".repeat(120)}`,
      "",
      "x".repeat(998),
      `${"word ".repeat(150)}`,
      "",
    ]),
    tamper: (m) => m.replace("xxxxx", "xxxxy"),
  },
  {
    name: "a field twice: the last one is signed, as verifiers read it",
    message: crlf(["From: ann@acme.example", "To: first@example.org", "To: second@example.org", "", "Hi", ""]),
    tamper: (m) => m.replace("second@", "other@"),
  },
];

describe("flagpost's DKIM signer against mailauth's verifier", () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const signed = await sign(c.message);
      expect(await verdict(signed)).toBe("pass");
      const text = signed.toString("latin1");
      const field = text.slice(0, text.length - c.message.length);
      expect(await verdict(Buffer.from(field + c.tamper(c.message), "latin1"))).not.toBe("pass");
    });
  }

  it("forgives what relaxed canonicalization allows: refolding, whitespace runs, trailing empty lines", async () => {
    const message = crlf(["From: ann@acme.example", "Subject: one two three", "", "body  text", ""]);
    const signed = (await sign(message)).toString("latin1");
    const altered = signed
      .replace("Subject: one two three", "Subject:   one\r\n two \t three  ")
      .replace("body  text\r\n", "body \t text \r\n\r\n\r\n");
    expect(await verdict(Buffer.from(altered, "latin1"))).toBe("pass");
  });

  it("canonicalizes as RFC 6376 §3.4.5's example", () => {
    expect(relaxedField("A: X")).toBe("a:X");
    expect(relaxedField("B : Y\t\r\n\tZ  ")).toBe("b:Y Z");
    expect(relaxedBody(" C \r\nD \t E\r\n\r\n\r\n")).toBe(" C\r\nD E\r\n");
    expect(relaxedBody("\r\n\r\n")).toBe("");
    // WSP is SP and HTAB only (RFC 5234): a UTF-8 non-breaking space (C2 A0) stays.
    expect(relaxedField(utf8("Subject: a\u00a0 b\u00a0"))).toBe(utf8("subject:a\u00a0 b\u00a0"));
  });

  it("signs the fields of the list the message has, each once, From first", async () => {
    const field = dkimSignatureField(
      Buffer.from(crlf(["Subject: s", "From: ann@acme.example", "X-Other: o", "Date: d", "", ""])),
      dkim,
    );
    expect(field.replace(/\r\n[ \t]/g, " ")).toMatch(/ h=from:subject:date; b=/);
    expect(field).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=acme\.example;/);
    expect(field).not.toMatch(/\bl=|\bt=|\bx=/);
  });
});

describe("a message whose key cannot sign", () => {
  let sink: SmtpSink;
  beforeEach(async () => (sink = await startSmtpSink()));
  afterEach(() => sink.close());

  it("is not sent: the attempt fails as a transient TransportError naming the domain", async () => {
    const transport = nodemailerTransport(
      nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
      { closeTransporter: true },
    );
    const message: OutgoingMessage = {
      id: "e1",
      messageId: "<e1@acme.example>",
      date: new Date(),
      from: { address: "ann@acme.example", domain: "acme.example" },
      to: [{ address: "bob@example.org", domain: "example.org" }],
      cc: [],
      bcc: [],
      replyTo: [],
      recipients: ["bob@example.org"],
      subject: "Hello",
      headers: {},
      text: "Hi\n",
      attachments: [],
      // A public key cannot make a signature: node:crypto refuses it.
      dkim: { ...dkim, privateKey: publicKey },
    };
    const error = await transport.send(message).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ kind: "transient", message: expect.stringContaining(DOMAIN) });
    // The same message with its key goes out signed.
    await transport.send({ ...message, dkim });
    await sink.waitFor(1);
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]!.raw.toString("latin1")).toMatch(/^DKIM-Signature: /);
    await transport.close?.();
  });
});
