import { readFile, readdir } from "node:fs/promises";
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { mailReportParser } from "../../adapters/inbound/index.js";
import { bounceMessage } from "../../adapters/inbound/plain-bounce.js";
import { isAddress, replyCodeIn } from "../../adapters/inbound/readers/mta/common.js";
import { MTA_READERS } from "../../adapters/inbound/readers/mta-readers.js";
import type { DeliveryReport } from "../../src/emails/index.js";

/**
 * The plain-text bounces of MTAs (adapters/inbound/readers/mta/): every fixture written after a
 * family's real structure (fixtures/README.md says which) gives exactly the reports pinned in
 * fixtures/mta-reports.json, matched to the flagpost email it answers, and is recognised by its
 * own family's reader.
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

/** Each fixture's pinned reports, by fixture name (a data file: fixtures/mta-reports.json). */
const PINNED = JSON.parse(await readFile(new URL("./fixtures/mta-reports.json", import.meta.url), "utf8")) as Record<
  string,
  Expected
>;

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
    // An auto-reply is an `auto_replied` report (reason vacation), never a bounce.
    for (const raw of messages) {
      const bounces = (await parser.parse(raw)).filter((report) => report.type !== "auto_replied");
      expect(bounces, raw.slice(0, 80)).toEqual([]);
    }
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
