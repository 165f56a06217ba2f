import { readFile } from "node:fs/promises";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mailReportParser } from "../../adapters/inbound/index.js";
import type { DeliveryReport } from "../../src/internal.js";

/**
 * The DSN / ARF parser against messages shaped after what real mail systems send (see
 * fixtures/README.md for where each is modelled from): every report it must find, exactly, and
 * nothing from messages that are not delivery reports. Then garbage: it never throws.
 */
const parser = mailReportParser();
const fixture = (name: string) => readFile(new URL(`./fixtures/${name}`, import.meta.url));
const id = (last: string) => `0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6a7${last}`;
const acmeMessageId = (last: string) => `<${id(last)}@acme.example>`;

const EXPECTED: Record<string, DeliveryReport[]> = {
  "rfc3464-simple.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      reason: "expired",
      recipient: "louis@dialup.example.net",
      messageId: `<${id("0")}@lists.example.edu>`,
      occurredAt: "2025-03-03T22:15:49.000Z",
      status: "4.0.0",
      diagnostic: "426 connection timed out",
      bounce: { type: "Transient", subType: "General", reason: "expired", message: "426 connection timed out" },
    },
  ],
  "rfc3464-multi-recipient.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      // Sisimai's "rejected" (the gateway refuses the sender): soft, and never a reason to suppress.
      reason: "rejected",
      recipient: "arathi@gateway.example.com",
      emailId: id("9"),
      messageId: acmeMessageId("9"),
      occurredAt: "2025-03-07T16:30:05.000Z",
      status: "5.0.0",
      replyCode: "550",
      diagnostic: "550 'arathi@gateway.example.com' is not a registered gateway user",
      bounce: {
        type: "Transient",
        subType: "General",
        reason: "rejected",
        message: "550 'arathi@gateway.example.com' is not a registered gateway user",
      },
    },
    {
      type: "delayed",
      source: "dsn",
      action: "delayed",
      reason: "expired",
      recipient: "john@lab.example.org",
      emailId: id("9"),
      messageId: acmeMessageId("9"),
      occurredAt: "2025-03-07T16:30:05.000Z",
      status: "4.0.0",
    },
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      reason: "userunknown",
      recipient: "wes@campus.example.edu",
      emailId: id("9"),
      messageId: acmeMessageId("9"),
      occurredAt: "2025-03-07T16:30:05.000Z",
      status: "5.1.1",
      replyCode: "550",
      diagnostic: "550 user unknown",
      bounce: { type: "Permanent", subType: "NoEmail", reason: "userunknown", message: "550 user unknown" },
    },
  ],
  "rfc5965-abuse.eml": [
    {
      type: "complained",
      source: "arf",
      feedbackType: "abuse",
      recipient: "user@mailbox.example.com",
      messageId: acmeMessageId("8"),
      occurredAt: "2025-03-13T21:40:36.000Z",
    },
  ],
  "postfix-user-unknown.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      reason: "userunknown",
      recipient: "mia.chen@example.net",
      emailId: id("1"),
      messageId: acmeMessageId("1"),
      occurredAt: "2025-03-11T09:12:43.000Z",
      status: "5.1.1",
      replyCode: "550",
      command: "RCPT",
      diagnostic: "550 5.1.1 <mia@mx.example.net>: Recipient address rejected: User unknown in virtual mailbox table",
      bounce: {
        type: "Permanent",
        subType: "NoEmail",
        reason: "userunknown",
        message: "550 5.1.1 <mia@mx.example.net>: Recipient address rejected: User unknown in virtual mailbox table",
      },
    },
  ],
  "postfix-delayed.eml": [
    {
      type: "delayed",
      source: "dsn",
      action: "delayed",
      reason: "expired",
      recipient: "ops@slow.example.org",
      emailId: id("2"),
      messageId: acmeMessageId("2"),
      occurredAt: "2025-03-11T13:20:07.000Z",
      status: "4.4.1",
      diagnostic: "connect to mx.slow.example.org[203.0.113.7]:25: Connection timed out",
    },
  ],
  "postfix-relayed.eml": [
    {
      type: "delivered",
      source: "dsn",
      action: "relayed",
      reason: "delivered",
      recipient: "lena@example.com",
      emailId: id("3"),
      messageId: acmeMessageId("3"),
      occurredAt: "2025-03-12T08:01:12.000Z",
      status: "2.0.0",
      replyCode: "250",
      diagnostic: "250 2.0.0 OK 1741766472 q5-20020a05600c2c4500b0043cf1a2b3c4si1234567wmd.201 - gsmtp",
    },
  ],
  "exim-mailbox-full.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      reason: "mailboxfull",
      recipient: "carol@example.de",
      emailId: id("4"),
      messageId: acmeMessageId("4"),
      occurredAt: "2025-03-10T13:03:22.000Z",
      // The DSN's 5.0.0 says less than the 5.2.2 the server's words quote.
      status: "5.2.2",
      replyCode: "552",
      command: "DATA",
      diagnostic: "552 5.2.2 carol@example.de: mailbox full, quota exceeded",
      bounce: {
        type: "Transient",
        subType: "MailboxFull",
        reason: "mailboxfull",
        message: "552 5.2.2 carol@example.de: mailbox full, quota exceeded",
      },
    },
  ],
  "gmail-address-not-found.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      reason: "userunknown",
      recipient: "no.such.user@example.org",
      emailId: id("5"),
      messageId: acmeMessageId("5"),
      occurredAt: "2025-03-12T10:41:07.000Z",
      status: "5.1.1",
      replyCode: "550",
      diagnostic: "550 5.1.1 <no.such.user@example.org>: Recipient address rejected: User unknown",
      bounce: {
        type: "Permanent",
        subType: "NoEmail",
        reason: "userunknown",
        message: "550 5.1.1 <no.such.user@example.org>: Recipient address rejected: User unknown",
      },
    },
  ],
  "office365-recipient-not-found.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      reason: "userunknown",
      recipient: "nils.berg@fabrikam.example",
      emailId: id("6"),
      messageId: acmeMessageId("6"),
      occurredAt: "2025-03-13T10:02:12.000Z",
      status: "5.1.10",
      replyCode: "550",
      diagnostic:
        "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient nils.berg@fabrikam.example not found by SMTP address lookup",
      bounce: {
        type: "Permanent",
        subType: "NoEmail",
        reason: "userunknown",
        message:
          "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient nils.berg@fabrikam.example not found by SMTP address lookup",
      },
    },
  ],
  "yahoo-feedback-loop.eml": [
    {
      type: "complained",
      source: "arf",
      feedbackType: "abuse",
      recipient: "pat.doe@yahoo.example",
      emailId: id("7"),
      messageId: acmeMessageId("7"),
      occurredAt: "2025-03-14T18:22:51.000Z",
    },
  ],
  "yahoo-failure-notice.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      reason: "userunknown",
      recipient: "gone.away@example.com",
      emailId: id("a"),
      messageId: acmeMessageId("a"),
      occurredAt: "2025-03-14T19:01:06.000Z",
      status: "5.1.1",
      replyCode: "550",
      command: "RCPT",
      diagnostic: "Remote host said: 550 5.1.1 <gone.away@example.com>... User Unknown [RCPT_TO]",
      bounce: {
        type: "Permanent",
        subType: "NoEmail",
        reason: "userunknown",
        message: "Remote host said: 550 5.1.1 <gone.away@example.com>... User Unknown [RCPT_TO]",
      },
    },
  ],
  "dmarc-auth-failure.eml": [],
  "read-receipt.eml": [],
};

describe("mailReportParser: real-looking reports", () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(`${name} → ${expected.length === 0 ? "no report" : expected.map((r) => r.type).join(", ")}`, async () => {
      const raw = await fixture(name);
      expect(await parser.parse(raw)).toEqual(expected);
      // The same message as text gives the same reports.
      expect(await parser.parse(raw.toString("utf8"))).toEqual(expected);
    });
  }

  it("has a pinned expectation for every fixture file", async () => {
    const { readdir } = await import("node:fs/promises");
    const files = (await readdir(new URL("./fixtures/", import.meta.url))).filter((f) => f.endsWith(".eml"));
    // The plain-text readers' fixtures are pinned by their own suites (readers-*.test.ts), in the
    // suite or in a table beside the fixtures (fixtures/*.json).
    const suites = (await readdir(new URL("./", import.meta.url)))
      .filter((f) => /^readers-.*\.test\.ts$/.test(f))
      .map((f) => `./${f}`);
    const tables = (await readdir(new URL("./fixtures/", import.meta.url)))
      .filter((f) => f.endsWith(".json"))
      .map((f) => `./fixtures/${f}`);
    const texts = [...suites, ...tables].map((f) => readFile(new URL(f, import.meta.url), "utf8"));
    const pinnedThere = (await Promise.all(texts)).join("\n");
    const unpinned = files.filter((f) => !(f in EXPECTED) && !pinnedThere.includes(`"${f}"`));
    expect(unpinned).toEqual([]);
    expect(Object.keys(EXPECTED).filter((f) => !files.includes(f))).toEqual([]);
  });

  it("finds the VERP id in a Delivered-To line the receiving MTA (or flagpost's listener) added", async () => {
    const raw = (await fixture("rfc3464-simple.eml")).toString("utf8");
    const delivered = `Delivered-To: bounces+${id("0")}@bounce.acme.example\n${raw}`;
    const [report] = await parser.parse(delivered);
    expect(report?.emailId).toBe(id("0"));
  });

  it("ignores a bounces+ address whose id is not an email id", async () => {
    const raw = (await fixture("rfc3464-simple.eml")).toString("utf8");
    const [report] = await parser.parse(`Delivered-To: bounces+not-an-id@bounce.acme.example\n${raw}`);
    expect(report).toBeDefined();
    expect(report!.emailId).toBeUndefined();
  });
});

describe("mailReportParser: garbage", () => {
  it("gives [] for empty, binary and non-report input", async () => {
    const inputs: (string | Uint8Array)[] = [
      "",
      "\r\n\r\n",
      "not a message at all",
      new Uint8Array([0, 255, 0, 255, 13, 10, 13, 10]),
      "Content-Type: multipart/report; report-type=delivery-status\n\nno parts at all",
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\n\n--b\nContent-Type: message/delivery-status\n\n\n--b--\n',
      'Content-Type: multipart/report; report-type=feedback-report; boundary="b"\n\n--b\nContent-Type: message/feedback-report\n\nUser-Agent: x\n--b--\n',
    ];
    for (const input of inputs) expect(await parser.parse(input)).toEqual([]);
  });

  it("never throws on any cut of a real report", async () => {
    const raw = await fixture("gmail-address-not-found.eml");
    for (let end = 0; end <= raw.length; end += 97) {
      const reports = await parser.parse(raw.subarray(0, end));
      expect(Array.isArray(reports)).toBe(true);
    }
  });

  it("never throws on random bytes or on a report with random bytes spliced in", async () => {
    const raw = await fixture("postfix-user-unknown.eml");
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), fc.nat(raw.length), async (noise, at) => {
        expect(Array.isArray(await parser.parse(noise))).toBe(true);
        const spliced = Buffer.concat([raw.subarray(0, at), noise, raw.subarray(at)]);
        expect(Array.isArray(await parser.parse(spliced))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
