import { readFile } from "node:fs/promises";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mailReportParser } from "../../adapters/inbound/index.js";
import type { DeliveryReport } from "../../src/emails/index.js";
import { pinnedFixtureNames, withoutVerdict } from "./support/pinned-reports.js";

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
  "dmarc-auth-failure.eml": [],
  "read-receipt.eml": [],
};

const idB = (last: string) => `0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6${last}`;
const acmeIdB = (last: string) => `<${idB(last)}@acme.example>`;

/**
 * Reports in the shapes real mail systems give them beyond the textbook: a delivery-status part
 * inside multipart/mixed (McAfee) or in a multipart/report without report-type, status fields in
 * the text (Amazon WorkMail) or left there by a broken multipart/report, recipient blocks without
 * blank lines (AOL), CR-only line ends, SES notifications mailed as JSON, auto-replies and Apple
 * Mail's unsubscribe. The classifier's verdict is left out (see support/pinned-reports.ts).
 */
const STRUCTURE_EXPECTED: Record<string, DeliveryReport[]> = {
  "amazonses-email-bounce.eml": [
    {
      type: "bounced",
      source: "ses",
      action: "failed",
      recipient: "sam@example.com",
      emailId: idB("b1e"),
      messageId: acmeIdB("b1e"),
      providerMessageId: "0101019684a1b2c3-00000030-1111-2222-3333-444444444444-000000",
      occurredAt: "2025-04-30T00:06:40.502Z",
      status: "5.1.1",
      diagnostic: "550 5.1.1 user unknown",
    },
  ],
  "amazonses-sns-json-complaint.eml": [
    {
      type: "complained",
      source: "ses",
      feedbackType: "abuse",
      recipient: "tom@example.com",
      emailId: idB("b1f"),
      messageId: acmeIdB("b1f"),
      providerMessageId: "0101019684a1b2c3-00000031-1111-2222-3333-444444444444-000000",
      occurredAt: "2025-04-30T01:49:01.000Z",
    },
  ],
  "amazonworkmail-expired.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "otto@example.org",
      emailId: idB("b1b"),
      messageId: acmeIdB("b1b"),
      occurredAt: "2025-04-28T22:00:00.000Z",
      status: "4.4.7",
      diagnostic: "554 4.4.7 Message expired: unable to deliver in 840 minutes.",
    },
  ],
  "amazonworkmail-user-unknown.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "nora@example.jp",
      emailId: idB("b1a"),
      messageId: acmeIdB("b1a"),
      occurredAt: "2025-04-28T07:45:09.000Z",
      status: "5.1.1",
      diagnostic: "550 5.1.1 <nora@example.jp>... User Unknown",
    },
  ],
  "aol-host-not-found.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "rosa@nonexistent.example",
      emailId: idB("b1d"),
      messageId: acmeIdB("b1d"),
      occurredAt: "2025-04-29T21:15:27.000Z",
      status: "5.4.4",
      diagnostic:
        "Host or domain name not found. Name service error for name=nonexistent.example type=A: Host not found",
    },
  ],
  "aol-two-recipients-no-blank-line.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "pia@example.jp",
      emailId: idB("b1c"),
      messageId: acmeIdB("b1c"),
      occurredAt: "2025-04-29T21:24:04.000Z",
      status: "5.2.2",
      diagnostic: "550 5.2.2 <pia@example.jp>... Mailbox Full",
    },
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "quin@example.jp",
      emailId: idB("b1c"),
      messageId: acmeIdB("b1c"),
      occurredAt: "2025-04-29T21:24:04.000Z",
      status: "5.1.1",
      diagnostic: "550 5.1.1 <quin@example.jp>... User Unknown",
    },
  ],
  "apple-unsubscribe.eml": [
    {
      type: "complained",
      source: "arf",
      feedbackType: "opt-out",
      recipient: "wim@icloud.example",
      messageId: acmeIdB("b22"),
      occurredAt: "2025-05-02T17:48:55.000Z",
    },
  ],
  "mcafee-unknown-user.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "lars@example.co.jp",
      emailId: idB("b18"),
      messageId: acmeIdB("b18"),
      occurredAt: "2025-04-27T03:00:00.000Z",
      status: "5.0.0",
      diagnostic: "550 Unknown user lars@example.co.jp",
    },
  ],
  "mcafee-user-unknown-status.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "mona@example.jp",
      emailId: idB("b19"),
      messageId: acmeIdB("b19"),
      occurredAt: "2025-04-27T04:00:00.000Z",
      status: "5.1.1",
      diagnostic: "550 5.1.1 <mona@example.jp>... User unknown",
    },
  ],
  "rfc3464-broken-boundary.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "xavier@example.edu",
      emailId: idB("b23"),
      messageId: acmeIdB("b23"),
      occurredAt: "2025-05-04T04:34:46.000Z",
      status: "5.1.1",
      diagnostic: "550 5.1.1 <xavier@example.edu>: Recipient address rejected: User unknown in local recipient table",
    },
  ],
  "rfc3464-cr-only.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "zoe@example.org",
      emailId: idB("b25"),
      messageId: acmeIdB("b25"),
      occurredAt: "2025-05-04T06:00:00.000Z",
      status: "5.2.2",
      diagnostic: "552 5.2.2 <zoe@example.org>: Mailbox full",
    },
  ],
  "rfc3464-no-boundaries.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "yara@mailx.example.edu",
      emailId: idB("b24"),
      messageId: acmeIdB("b24"),
      occurredAt: "2025-05-04T04:40:00.000Z",
      status: "5.5.0",
    },
  ],
  "rfc3464-report-without-type.eml": [
    {
      type: "bounced",
      source: "dsn",
      action: "failed",
      recipient: "amir@example.com",
      emailId: idB("b26"),
      messageId: acmeIdB("b26"),
      occurredAt: "2025-05-04T07:00:00.000Z",
      status: "5.1.1",
      diagnostic: "550 5.1.1 User unknown",
    },
  ],
  "rfc3834-auto-replied.eml": [
    {
      type: "auto_replied",
      source: "dsn",
      reason: "vacation",
      recipient: "ulla@example.net",
      emailId: idB("b20"),
      messageId: acmeIdB("b20"),
      occurredAt: "2025-05-01T08:00:01.000Z",
      diagnostic: "Away until May 12",
    },
  ],
  "rfc3834-exchange-automatic-reply.eml": [
    {
      type: "auto_replied",
      source: "dsn",
      reason: "vacation",
      recipient: "vera.berg@fabrikam.example",
      emailId: idB("b21"),
      messageId: acmeIdB("b21"),
      occurredAt: "2025-05-01T09:14:59.000Z",
      diagnostic: "Automatic reply: Your receipt",
    },
  ],
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

  for (const [name, expected] of Object.entries(STRUCTURE_EXPECTED)) {
    it(`${name} → ${expected.map((r) => r.type).join(", ")}`, async () => {
      const raw = await fixture(name);
      expect(withoutVerdict(await parser.parse(raw), expected)).toEqual(expected);
    });
  }

  it("has a pinned expectation for every fixture file (in one of the test/inbound pin tables)", async () => {
    const { readdir } = await import("node:fs/promises");
    const files = (await readdir(new URL("./fixtures/", import.meta.url))).filter((f) => f.endsWith(".eml"));
    const pinned = await pinnedFixtureNames();
    expect(files.filter((name) => !pinned.has(name))).toEqual([]);
    for (const name of [...Object.keys(EXPECTED), ...Object.keys(STRUCTURE_EXPECTED)])
      expect(pinned.has(name)).toBe(true);
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

describe("mailReportParser: shapes and look-alikes", () => {
  const message = (headers: string[], body: string[]) => [...headers, "", ...body].join("\n");

  it("reads a feedback-report part inside multipart/mixed as a complaint", async () => {
    const raw = message(
      [
        "From: fbl@mailbox.example.net",
        `To: bounces+${id("0")}@bounce.acme.example`,
        'Content-Type: multipart/mixed; boundary="b"',
      ],
      [
        "--b",
        "Content-Type: text/plain",
        "",
        "A complaint.",
        "--b",
        "Content-Type: message/feedback-report",
        "",
        "Feedback-Type: abuse",
        "User-Agent: fbl/1.0",
        "Version: 1",
        "Original-Rcpt-To: kim@mailbox.example.net",
        "--b--",
      ],
    );
    expect(await parser.parse(raw)).toEqual([
      {
        type: "complained",
        source: "arf",
        feedbackType: "abuse",
        recipient: "kim@mailbox.example.net",
        emailId: id("0"),
      },
    ]);
  });

  it("keeps Action, Final-Recipient and Original-Recipient in SES's order as one recipient, and splits the next", async () => {
    const raw = message(
      ['Content-Type: multipart/report; report-type=delivery-status; boundary="b"'],
      [
        "--b",
        "Content-Type: message/delivery-status",
        "",
        "Reporting-MTA: dns; inbound-smtp.example.com",
        "",
        "Action: failed",
        "Final-Recipient: rfc822; una@example.jp",
        "Original-Recipient: rfc822; una@example.jp",
        "Diagnostic-Code: smtp; 550 5.1.1 Mailbox does not exist",
        "Status: 5.1.1",
        "Final-Recipient: rfc822; vic@example.jp",
        "Action: delayed",
        "Status: 4.2.2",
        "--b--",
      ],
    );
    const reports = await parser.parse(raw);
    expect(reports.map((r) => [r.recipient, r.action, r.status])).toEqual([
      ["una@example.jp", "failed", "5.1.1"],
      ["vic@example.jp", "delayed", "4.2.2"],
    ]);
  });

  it("takes SendGrid's `Action: expired` for a failure", async () => {
    const raw = message(
      ['Content-Type: multipart/report; report-type=delivery-status; boundary="b"'],
      [
        "--b",
        "Content-Type: message/delivery-status",
        "",
        "Arrival-Date: 2025-05-05 10-00-00",
        "",
        "Final-Recipient: rfc822; lee@example.org",
        "Action: expired",
        "Status: ",
        "Diagnostic-Code: Connection timed out",
        "--b--",
      ],
    );
    const [report] = await parser.parse(raw);
    expect(report).toMatchObject({
      type: "bounced",
      action: "failed",
      recipient: "lee@example.org",
      diagnostic: "Connection timed out",
    });
  });

  it("gives no vacation report for a mailer daemon's notice, nor for a bounce it cannot read", async () => {
    const raw = message(
      [
        "From: Mail Delivery Subsystem <mailer-daemon@mx.example.org>",
        "Auto-Submitted: auto-replied",
        "Subject: Automatic reply: Notice",
      ],
      ["Something happened to your message."],
    );
    expect(await parser.parse(raw)).toEqual([]);
  });

  it("gives one auto_replied report per auto-reply, never a bounce", async () => {
    const raw = message(
      [
        "From: Ola <ola@example.net>",
        `To: bounces+${id("0")}@bounce.acme.example`,
        "X-Autoreply: yes",
        "Subject: Re: Your receipt",
      ],
      ["I am travelling this week."],
    );
    expect(await parser.parse(raw)).toEqual([
      {
        type: "auto_replied",
        source: "dsn",
        reason: "vacation",
        recipient: "ola@example.net",
        emailId: id("0"),
        diagnostic: "Re: Your receipt",
      },
    ]);
  });

  it("gives nothing for JSON mail that is no SES notification, or is cut", async () => {
    for (const body of [
      '{"Type":"Notification","Message":"{not json"}',
      '{"notificationType":"Bounce"}',
      "{",
      '{"mail":{}}',
    ]) {
      expect(await parser.parse(message(["From: no-reply@sns.amazonaws.com"], [body]))).toEqual([]);
    }
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
