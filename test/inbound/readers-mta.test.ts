import { readFile, readdir } from "node:fs/promises";
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { mailReportParser } from "../../adapters/inbound/index.js";
import { bounceMessage } from "../../adapters/inbound/plain-bounce.js";
import { isAddress, replyCodeIn } from "../../adapters/inbound/readers/mta/common.js";
import { MTA_READERS } from "../../adapters/inbound/readers/mta-readers.js";
import type { DeliveryReport } from "../../src/internal.js";

/**
 * The plain-text bounces of MTAs (adapters/inbound/readers/mta/): every fixture written after a
 * family's real structure (fixtures/README.md says which) gives exactly these reports, matched to
 * the flagpost email it answers, and is recognised by its own family's reader.
 */
const parser = mailReportParser();
const fixture = (name: string) => readFile(new URL(`./fixtures/${name}`, import.meta.url));
const id = (last: string) => `0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6b${last}`;

type Pinned = Pick<
  DeliveryReport,
  "recipient" | "action" | "status" | "replyCode" | "command" | "diagnostic" | "reason"
>;

interface Expected {
  /** The last two hex digits of the email id in the VERP address the bounce was sent to. */
  email: string;
  /** Whether the bounce quotes the original's Message-ID (else it is matched by VERP alone). */
  quoted: boolean;
  reports: Pinned[];
}

const PINNED: Record<string, Expected> = {
  "apachejames-invalid-user.eml": {
    email: "25",
    quoted: true,
    reports: [
      {
        recipient: "lea@example.net",
        action: "failed",
        replyCode: "550",
        command: "RCPT",
        diagnostic: "Error: Invalid user address 550 - Requested action not taken: no such user here",
      },
    ],
  },
  "apachejames-mailbox-full.eml": {
    email: "26",
    quoted: true,
    reports: [
      {
        recipient: "moe@example.net",
        action: "failed",
        replyCode: "552",
        command: "RCPT",
        diagnostic: "Error: Mailbox full 552 - Requested mail action aborted: exceeded storage allocation",
      },
    ],
  },
  "biglobe-mailbox-full.eml": {
    email: "1f",
    quoted: true,
    reports: [
      {
        recipient: "mika@mail.example.ne.jp",
        action: "failed",
        reason: "mailboxfull",
        diagnostic: "The number of messages in recipient's mailbox exceeded the local limit.",
      },
    ],
  },
  "biglobe-user-unknown.eml": {
    email: "20",
    quoted: true,
    reports: [
      {
        recipient: "shun@mail.example.ne.jp",
        action: "failed",
        reason: "filtered",
        diagnostic: "Mail Delivery Failed... User unknown",
      },
    ],
  },
  "domino-hop-count.eml": {
    email: "14",
    quoted: true,
    reports: [
      {
        recipient: "dev@example.com",
        action: "failed",
        reason: "networkerror",
        diagnostic:
          "Error transferring to hub.example.com; Maximum hop count exceeded. Message probably in a routing loop.",
      },
    ],
  },
  "domino-not-listed.eml": {
    email: "13",
    quoted: true,
    reports: [
      {
        recipient: "carla@example.com",
        action: "failed",
        reason: "userunknown",
        diagnostic: "User Carla Diaz (carla@example.com) not listed in Domino Directory",
      },
    ],
  },
  "dragonfly-dmarc-rejected.eml": {
    email: "06",
    quoted: true,
    reports: [
      {
        recipient: "pat@example.com",
        action: "failed",
        status: "5.7.26",
        replyCode: "550",
        command: "DATA",
        diagnostic:
          "mx1.example.com [192.0.2.31] did not like our final DATA: 550-5.7.26 Unauthenticated email from acme.example is not accepted due to 550-5.7.26 the domain's DMARC policy. Contact the administrator of the 550 5.7.26 acme.example domain if this was a legitimate mail.",
      },
    ],
  },
  "dragonfly-user-unknown.eml": {
    email: "07",
    quoted: true,
    reports: [
      {
        recipient: "sam@example.net",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        command: "RCPT",
        diagnostic:
          "mail.example.net [198.51.100.8] did not like our RCPT TO: 550 5.1.1 <sam@example.net>: Recipient address rejected: User unknown in local recipient table",
      },
    ],
  },
  "exchange2003-recipient-not-found.eml": {
    email: "12",
    quoted: false,
    reports: [
      {
        recipient: "nina@example.org",
        action: "failed",
        diagnostic: "Recipient Not Found MSEXCH:IMC:EXAMPLE:HQ:EXCH02",
      },
    ],
  },
  "exchange2003-unknown-recipient.eml": {
    email: "11",
    quoted: true,
    reports: [
      {
        recipient: "ruth@example.com",
        action: "failed",
        reason: "userunknown",
        diagnostic: "The recipient name is not recognized MSEXCH:IMS:EXAMPLE:HQ:EXCH01 0 (000C05A6) Unknown Recipient",
      },
      {
        recipient: "alan@example.com",
        action: "failed",
        reason: "userunknown",
        diagnostic: "The recipient name is not recognized MSEXCH:IMS:EXAMPLE:HQ:EXCH01 0 (000C05A6) Unknown Recipient",
      },
    ],
  },
  "exim-delay-warning.eml": {
    email: "02",
    quoted: false,
    reports: [
      {
        recipient: "linus@example.com",
        action: "delayed",
        status: "4.7.1",
        replyCode: "451",
        command: "MAIL",
        reason: "expired",
        diagnostic:
          "host mail.example.com [203.0.113.40] Delay reason: SMTP error from remote mail server after MAIL FROM:<bounces+0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6b02@bounce.acme.example> SIZE=2048: 451 4.7.1 Greylisted, please try again in 300 seconds",
      },
    ],
  },
  "exim-russian-preface.eml": {
    email: "03",
    quoted: true,
    reports: [
      {
        recipient: "olga@example.net",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        command: "RCPT",
        diagnostic:
          "SMTP error from remote mail server after RCPT TO:<olga@example.net>: host mx.example.net [192.0.2.77]: 550 5.1.1 <olga@example.net>... User unknown",
      },
    ],
  },
  "exim-user-unknown.eml": {
    email: "01",
    quoted: true,
    reports: [
      {
        recipient: "ada@example.org",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        command: "RCPT",
        diagnostic:
          "host mx.example.org [198.51.100.25] SMTP error from remote mail server after RCPT TO:<ada@example.org>: 550 5.1.1 <ada@example.org>: Recipient address rejected: User unknown in virtual mailbox table",
      },
      {
        recipient: "grace@example.org",
        action: "failed",
        status: "5.2.2",
        replyCode: "552",
        command: "DATA",
        diagnostic:
          "host mx.example.org [198.51.100.25] SMTP error from remote mail server after end of data: 552 5.2.2 <grace@example.org>: mailbox is over quota",
      },
    ],
  },
  "fml-loop-alert.eml": {
    email: "1e",
    quoted: true,
    reports: [
      {
        recipient: "acme-news@lists.example.org",
        action: "failed",
        reason: "systemerror",
        diagnostic: "Duplicated Message-ID in <acme-news@lists.example.org>.",
      },
    ],
  },
  "fml-not-member.eml": {
    email: "1d",
    quoted: true,
    reports: [
      {
        recipient: "acme-news@lists.example.org",
        action: "failed",
        reason: "rejected",
        diagnostic: "You are not a member of this mailing list <acme-news@lists.example.org>.",
      },
    ],
  },
  "imailserver-delivery-failed.eml": {
    email: "1a",
    quoted: true,
    reports: [
      {
        recipient: "yara@example.com",
        action: "failed",
        reason: "expired",
        diagnostic: "Delivery failed 20 attempts: yara@example.com",
      },
    ],
  },
  "imailserver-unknown-user.eml": {
    email: "19",
    quoted: true,
    reports: [
      {
        recipient: "xavier@example.net",
        action: "failed",
        reason: "userunknown",
        diagnostic: "Unknown user: xavier@example.net",
      },
    ],
  },
  "mailfoundry-mailbox-full.eml": {
    email: "22",
    quoted: true,
    reports: [
      {
        recipient: "ivy@example.org",
        action: "failed",
        status: "5.2.2",
        replyCode: "552",
        diagnostic: "Server mx1.example.org[192.0.2.81] failed with: 552 5.2.2 <ivy@example.org> Mailbox full",
      },
    ],
  },
  "mailfoundry-no-such-user.eml": {
    email: "21",
    quoted: true,
    reports: [
      {
        recipient: "hugo@example.org",
        action: "failed",
        replyCode: "550",
        diagnostic: "Server mx1.example.org[192.0.2.81] failed with: 550 <hugo@example.org> No such user here",
      },
    ],
  },
  "mailmarshal-blocked.eml": {
    email: "24",
    quoted: false,
    reports: [
      {
        recipient: "kim@example.com",
        action: "failed",
        status: "5.7.1",
        replyCode: "554",
        diagnostic: "554 5.7.1 Service unavailable; Client host [192.0.2.10] blocked using zen.example.net",
      },
    ],
  },
  "mailmarshal-user-unknown.eml": {
    email: "23",
    quoted: false,
    reports: [
      {
        recipient: "jon@example.com",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        diagnostic: "550 5.1.1 User unknown",
      },
    ],
  },
  "messagingserver-delayed.eml": {
    email: "18",
    quoted: true,
    reports: [
      {
        recipient: "walt@example.org",
        action: "delayed",
        status: "4.4.2",
        replyCode: "421",
        diagnostic: "421 4.4.2 Connection timed out Message delayed",
      },
    ],
  },
  "messagingserver-rejected.eml": {
    email: "17",
    quoted: true,
    reports: [
      {
        recipient: "vera@example.org",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        diagnostic: "550 5.1.1 <vera@example.org>... User unknown Remote SMTP server has rejected address",
      },
    ],
  },
  "mfilter-mailbox-full.eml": {
    email: "1c",
    quoted: true,
    reports: [
      {
        recipient: "ren@example.jp",
        action: "failed",
        status: "5.2.2",
        replyCode: "552",
        command: "DATA",
        diagnostic: "552 5.2.2 mailbox full <ren@example.jp>",
      },
    ],
  },
  "mfilter-unknown-user.eml": {
    email: "1b",
    quoted: true,
    reports: [
      {
        recipient: "aki@example.jp",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        command: "RCPT",
        diagnostic: "550 5.1.1 unknown user <aki@example.jp>",
      },
    ],
  },
  "mxlogic-relay-denied.eml": {
    email: "05",
    quoted: true,
    reports: [
      {
        recipient: "mei@example.org",
        action: "failed",
        status: "5.7.1",
        replyCode: "554",
        diagnostic: "554 5.7.1 <mei@example.org>: Relay access denied",
      },
    ],
  },
  "mxlogic-user-unknown.eml": {
    email: "04",
    quoted: true,
    reports: [
      {
        recipient: "ken@example.co.jp",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        diagnostic: "550 5.1.1 <ken@example.co.jp>: Recipient address rejected: User unknown in local recipient table",
      },
    ],
  },
  "notes-hop-count.eml": {
    email: "16",
    quoted: true,
    reports: [
      {
        recipient: "quinn@example.co.jp",
        action: "failed",
        reason: "networkerror",
        diagnostic: "Message has exceeded maximum hop count",
      },
    ],
  },
  "notes-not-listed.eml": {
    email: "15",
    quoted: true,
    reports: [
      {
        recipient: "paul@example.co.jp",
        action: "failed",
        reason: "userunknown",
        diagnostic: "User not listed in public Name & Address Book",
      },
    ],
  },
  "opensmtpd-delayed.eml": {
    email: "0c",
    quoted: true,
    reports: [
      {
        recipient: "lena@example.com",
        action: "delayed",
        status: "4.7.0",
        replyCode: "421",
        diagnostic: "421 4.7.0 Try again later, closing connection",
      },
    ],
  },
  "opensmtpd-user-unknown.eml": {
    email: "0b",
    quoted: true,
    reports: [
      {
        recipient: "iris@example.org",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        diagnostic: "550 5.1.1 <iris@example.org>... User unknown",
      },
      { recipient: "theo@example.org", action: "failed", reason: "hostunknown", diagnostic: "Domain does not exist" },
    ],
  },
  "postfix-plain-user-unknown.eml": {
    email: "0f",
    quoted: true,
    reports: [
      {
        recipient: "zoe@example.com",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        command: "RCPT",
        diagnostic:
          "host mail.example.com[203.0.113.9] said: 550 5.1.1 <zoe@example.com>: Recipient address rejected: User unknown in local recipient table (in reply to RCPT TO command)",
      },
    ],
  },
  "postfix-smtpd-transcript.eml": {
    email: "10",
    quoted: false,
    reports: [
      {
        recipient: "max@example.com",
        action: "failed",
        status: "4.3.0",
        replyCode: "451",
        command: "DATA",
        diagnostic: "451 4.3.0 Error: queue file write error",
      },
    ],
  },
  "qmail-no-smtp-connection.eml": {
    email: "09",
    quoted: true,
    reports: [
      {
        recipient: "yuki@example.jp",
        action: "failed",
        reason: "networkerror",
        diagnostic:
          "Sorry, I wasn't able to establish an SMTP connection. (#4.4.1) I'm not going to try again; this message has been in the queue too long.",
      },
    ],
  },
  "qmail-user-unknown.eml": {
    email: "08",
    quoted: true,
    reports: [
      {
        recipient: "noor@example.net",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        command: "RCPT",
        diagnostic:
          "198.51.100.61 does not like recipient. Remote host said: 550 5.1.1 <noor@example.net>: Recipient address rejected: User unknown Giving up on 198.51.100.61.",
      },
      {
        recipient: "rafael@example.net",
        action: "failed",
        reason: "userunknown",
        diagnostic: "Sorry, no mailbox here by that name. (#5.1.1)",
      },
    ],
  },
  "qmail-x4-mailfolder-full.eml": {
    email: "0a",
    quoted: true,
    reports: [
      {
        recipient: "omar@example.net",
        action: "failed",
        diagnostic:
          "child status 100...The e-mail message could not be delivered because the user's mailfolder is full.",
      },
    ],
  },
  "v5sendmail-deferred.eml": {
    email: "0e",
    quoted: true,
    reports: [
      {
        recipient: "ines@example.org",
        action: "failed",
        replyCode: "421",
        reason: "expired",
        diagnostic: "421 example.org (smtp)... Deferred: Connection timed out during user open with example.org",
      },
    ],
  },
  "v5sendmail-user-unknown.eml": {
    email: "0d",
    quoted: true,
    reports: [
      {
        recipient: "hana@example.edu",
        action: "failed",
        replyCode: "550",
        command: "RCPT",
        diagnostic: "550 <hana@example.edu>... User unknown",
      },
      {
        recipient: "kai@example.com",
        action: "failed",
        replyCode: "550",
        diagnostic: "550 Host unknown (Authoritative answer from name server)",
      },
    ],
  },
  "x1-two-recipients.eml": {
    email: "28",
    quoted: true,
    reports: [
      { recipient: "saul@example.co.jp", action: "failed", diagnostic: "User unknown" },
      { recipient: "tess@example.co.jp", action: "failed", diagnostic: "Mailbox full" },
    ],
  },
  "x1-user-unknown.eml": {
    email: "27",
    quoted: true,
    reports: [{ recipient: "rosa@example.co.jp", action: "failed", diagnostic: "User unknown" }],
  },
  "x2-disabled.eml": {
    email: "2a",
    quoted: true,
    reports: [
      {
        recipient: "val@example.com",
        action: "failed",
        diagnostic: "This user doesn't have a example.com account (val@example.com) [0]",
      },
      {
        recipient: "wes@example.com",
        action: "failed",
        diagnostic:
          "Sorry your message to wes@example.com cannot be delivered. This account has been disabled or discontinued [#102].",
      },
    ],
  },
  "x2-no-account.eml": {
    email: "29",
    quoted: true,
    reports: [
      {
        recipient: "umar@example.com",
        action: "failed",
        diagnostic: "This user doesn't have a example.com account (umar@example.com) [0]",
      },
    ],
  },
  "x3-no-such-user.eml": {
    email: "2b",
    quoted: true,
    reports: [
      {
        recipient: "yves@example.com",
        action: "failed",
        status: "5.3.0",
        replyCode: "553",
        command: "RCPT",
        diagnostic: "host 192.0.2.8: 553 5.3.0 <yves@example.com>... No such user here",
      },
    ],
  },
  "x3-two-recipients.eml": {
    email: "2c",
    quoted: true,
    reports: [
      {
        recipient: "zara@example.com",
        action: "failed",
        status: "5.7.1",
        replyCode: "554",
        command: "DATA",
        diagnostic: "host 192.0.2.8: 554 5.7.1 Message rejected as spam",
      },
      {
        recipient: "abel@example.com",
        action: "failed",
        status: "5.7.1",
        replyCode: "554",
        command: "DATA",
        diagnostic: "host 192.0.2.8: 554 5.7.1 Message rejected as spam",
      },
    ],
  },
  "x6-permanent-errors.eml": {
    email: "2d",
    quoted: true,
    reports: [
      {
        recipient: "bea@example.org",
        action: "failed",
        status: "5.4.6",
        replyCode: "554",
        command: "DATA",
        diagnostic:
          "The following recipients returned permanent errors: bea@example.org. Reason: SMTP Server <192.0.2.223> refused to accept your message (DATA), with the following error text: 554 5.4.6 Too many hops",
      },
    ],
  },
  "x6-rcpt-rejected.eml": {
    email: "2e",
    quoted: true,
    reports: [
      {
        recipient: "cy@example.org",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        command: "RCPT",
        diagnostic:
          "SMTP Server <smtp.example.org> rejected recipient <cy@example.org> (Error following RCPT command). It responded as follows: [550 5.1.1 User unknown]",
      },
    ],
  },
  "sendmail-flattened-expired.eml": {
    email: "30",
    quoted: true,
    reports: [
      {
        recipient: "bo@example.com",
        action: "failed",
        reason: "expired",
        diagnostic:
          "bo... Deferred: Connection refused by mail.example.com. Message could not be delivered for 5 days Message will be deleted from queue",
      },
    ],
  },
  "sendmail-flattened-user-unknown.eml": {
    email: "2f",
    quoted: true,
    reports: [
      {
        recipient: "abe@example.com",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        command: "RCPT",
        diagnostic: "550 5.1.1 <abe@example.com>... User unknown",
      },
    ],
  },
  "courier-no-such-domain.eml": {
    email: "32",
    quoted: true,
    reports: [
      { recipient: "eli@example.invalid", action: "failed", reason: "hostunknown", diagnostic: "No such domain." },
    ],
  },
  "courier-user-unknown.eml": {
    email: "31",
    quoted: true,
    reports: [
      {
        recipient: "dora@example.co.jp",
        action: "failed",
        status: "5.1.1",
        replyCode: "550",
        command: "RCPT",
        diagnostic: "550 5.1.1 <dora@example.co.jp>... User Unknown",
      },
    ],
  },
};

/** The reader each fixture's family is read by (clones read by the family they copy). */
const READER_OF: Record<string, string> = { mxlogic: "exim" };

function pick(report: DeliveryReport, pin: Pinned): Pinned {
  const picked: Pinned = { recipient: report.recipient, action: report.action, diagnostic: report.diagnostic };
  if (report.status !== undefined) picked.status = report.status;
  if (report.replyCode !== undefined) picked.replyCode = report.replyCode;
  if (report.command !== undefined) picked.command = report.command;
  if (pin.reason !== undefined) picked.reason = report.reason;
  return picked;
}

describe("MTA plain-text bounce readers", () => {
  for (const [name, expected] of Object.entries(PINNED)) {
    it(`${name} → ${expected.reports.map((r) => `${r.action} ${r.recipient}`).join(", ")}`, async () => {
      const reports = await parser.parse(await fixture(name));
      expect(reports.map((report, i) => pick(report, expected.reports[i] ?? {}))).toEqual(expected.reports);
      for (const report of reports) {
        expect(report.type).toBe(report.action === "delayed" ? "delayed" : "bounced");
        expect(report.emailId).toBe(id(expected.email));
        if (expected.quoted) expect(report.messageId).toBe(`<${id(expected.email)}@acme.example>`);
        if (report.type === "bounced") expect(report.bounce?.reason).toBe(report.reason);
      }
    });
  }

  it("has a pinned expectation for every fixture of an MTA family", async () => {
    const families = new Set(MTA_READERS.map((reader) => reader.name));
    for (const clone of Object.keys(READER_OF)) families.add(clone);
    const files = (await readdir(new URL("./fixtures/", import.meta.url))).filter((f) => f.endsWith(".eml"));
    const own = files.filter((f) => families.has(f.split("-")[0] ?? "") && !(f in OTHER_SUITES));
    expect(own.sort()).toEqual(Object.keys(PINNED).sort());
  });

  it("each fixture is recognised first by its own family's reader", async () => {
    for (const name of Object.keys(PINNED)) {
      const mail = await simpleParser(await fixture(name), { keepDeliveryStatus: true, ignoreEmbedded: true });
      const message = bounceMessage(mail);
      const first = MTA_READERS.find((reader) => reader.read(message) !== undefined);
      const family = name.split("-")[0] ?? "";
      expect(first?.name, name).toBe(READER_OF[family] ?? family);
    }
  });

  it("no reader answers an auto-reply, a delivery notice or a message that is not a bounce", async () => {
    const messages = [
      "From: Ada <ada@example.org>\nTo: hello@acme.example\nSubject: Out of office: Your Acme receipt\nAuto-Submitted: auto-replied\n\nI am away until Monday. This message was created automatically.\n",
      "From: Mail Delivery System <MAILER-DAEMON@mx.example.com>\nTo: hello@acme.example\nSubject: Successful Mail Delivery Report\n\nThis is the mail system at host mx.example.com.\n\nYour message was successfully delivered to the destination(s)\nlisted below.\n\n<ada@example.org>: delivery via mail.example.org[192.0.2.1]:25: 250 2.0.0 Ok\n",
      "From: Grace <grace@example.org>\nTo: hello@acme.example\nSubject: Re: failure notice\n\nHi. This is the qmail-send program at my house, just kidding.\n\n<ada@example.org>: she says hello\n",
      "From: MAILER-DAEMON@example.com\nTo: hello@acme.example\nSubject: Mail delivery failed\n\nSomething went wrong, but we will not say what or for whom.\n",
    ];
    for (const raw of messages) expect(await parser.parse(raw), raw.slice(0, 80)).toEqual([]);
  });

  it("reads hostile notices (very long lines and addresses) in bounded time", async () => {
    const long = "a".repeat(300_000);
    const messages = [
      `From: Mail Delivery System <x@mx.example>\nSubject: Mail delivery failed\nX-Failed-Recipients: ada@example.org\n\nThis message was created automatically by mail delivery software.\n\n  ${long}\n    generated by ${long}\n  ${"@".repeat(100_000)}.${long}\n`,
      `Subject: failure notice\n\nHi. This is the qmail-send program at mx.example.\n\n<${long}@${long}>:\n${long}\n`,
      `Subject: Returned mail: x\n\n   ----- Transcript of session follows -----\n554 <${long}>... ${long}\n   ----- Unsent message follows -----\nTo: ${long}\n`,
      `Subject: Returned mail: x\n\n----- The following addresses had permanent fatal errors -----\n${long}\n\nFinal-Recipient: rfc822; ${long}\n`,
    ];
    for (const raw of messages) {
      const started = performance.now();
      await parser.parse(raw);
      expect(performance.now() - started).toBeLessThan(5_000);
    }
  });

  it("reads CRLF line ends as LF", async () => {
    const raw = (await fixture("qmail-user-unknown.eml")).toString("utf8");
    const lf = await parser.parse(raw);
    expect(lf).toHaveLength(2);
    expect(await parser.parse(raw.replace(/\n/g, "\r\n"))).toEqual(lf);
  });

  it("finds a reply code only where a server's answer begins, and an address only when it is one", () => {
    expect(replyCodeIn("host mx.example.org [192.0.2.153]: 550 5.1.1 <a@example.org>")).toBe("550");
    expect(replyCodeIn("550-5.7.26 Unauthenticated email")).toBe("550");
    expect(replyCodeIn("It responded as follows: [552 5.2.2 Mailbox full]")).toBe("552");
    expect(replyCodeIn("MAIL FROM:<a@example.org> SIZE=1543: no code")).toBeUndefined();
    expect(replyCodeIn("host [192.0.2.250] timed out after 600 seconds")).toBeUndefined();
    expect(isAddress("<ada@example.org>")).toBe(true);
    expect(isAddress("ada@example.org said")).toBe(false);
    expect(isAddress("kijitora")).toBe(false);
  });
});

/** Fixtures of these families that report-parser.test.ts pins (machine-readable DSNs of the same MTA). */
const OTHER_SUITES: Record<string, true> = {
  "exim-mailbox-full.eml": true,
  "postfix-delayed.eml": true,
  "postfix-relayed.eml": true,
  "postfix-user-unknown.eml": true,
};
