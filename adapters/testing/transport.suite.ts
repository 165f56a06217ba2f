import type { ParsedMail } from "mailparser";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MailTransport, OutgoingMessage } from "../../src/ports/transport.js";
import { importWithPeers } from "../../src/optional-peer.js";

/** One message as it reached the other end: its bytes (RFC 5322) and the envelope recipients. */
export interface DeliveredMessage {
  raw: Buffer;
  recipients: string[];
}

/** What a transport harness hands the suite: a transport, and what reached the other end. */
export interface TransportUnderTest {
  transport: MailTransport;
  /** Every message delivered so far, in the order sent. The suite parses them (with mailparser). */
  delivered(): Promise<DeliveredMessage[]>;
  dispose(): Promise<void>;
}

export interface TransportHarness {
  name: string;
  /** The status a successful send reports. */
  reports: "sent" | "delivered";
  create(): Promise<TransportUnderTest>;
}

// mailparser is loaded when a transport test runs, so a storage author needs only vitest.
async function parsedDeliveries(under: TransportUnderTest): Promise<(DeliveredMessage & { parsed: ParsedMail })[]> {
  const { simpleParser } = await importWithPeers(
    "the transport suite of flagpost/testing",
    ["mailparser"],
    () => import("mailparser"),
  );
  const delivered = await under.delivered();
  return Promise.all(delivered.map(async (d) => ({ ...d, parsed: await simpleParser(d.raw) })));
}

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4a80000000049454e44ae426082",
  "hex",
);

function fullMessage(id = "0197aaaa-0000-7000-8000-000000000001"): OutgoingMessage {
  return {
    id,
    messageId: `<${id}@example.com>`,
    date: new Date("2026-06-01T10:00:00.000Z"),
    from: { name: "Flagpost Team", address: "team@example.com", domain: "example.com" },
    to: [
      { name: "Doe, Jane", address: "jane@example.org", domain: "example.org" },
      { address: "bob@example.org", domain: "example.org" },
    ],
    cc: [{ name: "Carol", address: "carol@example.net", domain: "example.net" }],
    bcc: [{ address: "hidden@example.net", domain: "example.net" }],
    replyTo: [{ name: "Support", address: "support@example.com", domain: "example.com" }],
    recipients: ["jane@example.org", "bob@example.org", "carol@example.net", "hidden@example.net"],
    subject: "Grüße aus Köln — ✓",
    html: "<h1>Hello</h1><p>Ünïcode ✓</p>",
    text: "Hello\nÜnïcode ✓",
    headers: { "X-Campaign": "spring-2026", "List-Unsubscribe": "<mailto:unsubscribe@example.com>" },
    attachments: [
      { filename: "notes.txt", content: Buffer.from("first line\nsecond line\n"), contentType: "text/plain" },
      { filename: "pixel.png", content: PNG },
    ],
  };
}

/** The one transport suite: every transport adapter's test file calls this once. */
export function describeTransportConformance(harness: TransportHarness): void {
  describe(`transport conformance: ${harness.name}`, () => {
    let under: TransportUnderTest;
    beforeEach(async () => {
      under = await harness.create();
    });
    afterEach(async () => {
      await under.dispose();
    });

    it("delivers From, To, Cc, Reply-To, Subject, both parts, attachments and custom headers as given", async () => {
      const message = fullMessage();
      const result = await under.transport.send(message);
      expect(result.status).toBe(harness.reports);
      expect(result.messageId).toBe(message.messageId);
      expect([...result.accepted].map((a) => a.toLowerCase()).sort()).toEqual(
        ["bob@example.org", "carol@example.net", "hidden@example.net", "jane@example.org"].sort(),
      );
      expect(result.rejected).toEqual([]);

      const [got] = await parsedDeliveries(under);
      const mail = got!.parsed;
      expect(mail.messageId).toBe(message.messageId);
      expect(mail.date?.toISOString()).toBe("2026-06-01T10:00:00.000Z");
      expect(mail.from?.value).toEqual([{ name: "Flagpost Team", address: "team@example.com" }]);
      const to = Array.isArray(mail.to) ? mail.to.flatMap((t) => t.value) : mail.to?.value;
      expect(to).toEqual([
        { name: "Doe, Jane", address: "jane@example.org" },
        { name: "", address: "bob@example.org" },
      ]);
      const cc = Array.isArray(mail.cc) ? mail.cc.flatMap((t) => t.value) : mail.cc?.value;
      expect(cc).toEqual([{ name: "Carol", address: "carol@example.net" }]);
      expect(mail.replyTo?.value).toEqual([{ name: "Support", address: "support@example.com" }]);
      expect(mail.subject).toBe("Grüße aus Köln — ✓");
      expect(mail.html).toContain("<h1>Hello</h1><p>Ünïcode ✓</p>");
      expect(mail.text?.trim()).toBe("Hello\nÜnïcode ✓");
      expect(mail.headers.get("x-campaign")).toBe("spring-2026");
      expect(got!.raw.toString("latin1")).toMatch(/^List-Unsubscribe: <mailto:unsubscribe@example\.com>\r?$/m);

      expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([
        ["notes.txt", "text/plain"],
        ["pixel.png", "image/png"],
      ]);
      expect(mail.attachments[0]!.content.toString()).toBe("first line\nsecond line\n");
      expect(Buffer.compare(mail.attachments[1]!.content, PNG)).toBe(0);
    });

    it("keeps Bcc out of the message and in the envelope only", async () => {
      await under.transport.send(fullMessage());
      const [got] = await parsedDeliveries(under);
      expect(got!.parsed.headers.has("bcc")).toBe(false);
      expect(got!.raw.toString("latin1")).not.toContain("hidden@example.net");
      expect(got!.recipients.map((r) => r.toLowerCase())).toContain("hidden@example.net");
    });

    it("sends a text-only and an html-only message", async () => {
      const text = {
        ...fullMessage("0197aaaa-0000-7000-8000-000000000002"),
        html: undefined,
        attachments: [],
      } as OutgoingMessage;
      delete text.html;
      const html = { ...fullMessage("0197aaaa-0000-7000-8000-000000000003"), attachments: [] } as OutgoingMessage;
      delete html.text;
      await under.transport.send(text);
      await under.transport.send(html);
      const delivered = await parsedDeliveries(under);
      expect(delivered).toHaveLength(2);
      const byId = new Map(delivered.map((d) => [d.parsed.messageId, d.parsed]));
      expect(byId.get(text.messageId)?.html).toBe(false);
      expect(byId.get(text.messageId)?.text?.trim()).toBe("Hello\nÜnïcode ✓");
      expect(byId.get(html.messageId)?.html).toContain("<h1>Hello</h1>");
    });

    it("gives a message sent twice the same Message-ID", async () => {
      const message = fullMessage();
      await under.transport.send(message);
      await under.transport.send(message);
      const ids = (await parsedDeliveries(under)).map((d) => d.parsed.messageId);
      expect(ids.length).toBeGreaterThanOrEqual(1);
      expect(new Set(ids)).toEqual(new Set([message.messageId]));
    });
  });
}
