import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mailgunSource } from "../../adapters/inbound/providers/mailgun.js";
import { postmarkSource } from "../../adapters/inbound/providers/postmark.js";
import { sendgridSource } from "../../adapters/inbound/providers/sendgrid.js";
import { sesSource } from "../../adapters/inbound/providers/ses.js";
import { FlagpostError } from "../../src/errors.js";
import type { ReportSource } from "../../src/ports/report-source.js";
import { fakeClock } from "../support/fake-clock.js";
import { EMAIL_ID, MAILGUN, MESSAGE_ID, POSTMARK, SENDGRID_EVENTS, SES } from "./support/provider-payloads.js";
import {
  CERT_URL,
  fakeSns,
  mailgunRequest,
  postmarkRequest,
  REGION,
  sendgridKeys,
  sendgridRequest,
  type SignedRequest,
  snsRequest,
  TOPIC_ARN,
} from "./support/provider-requests.js";

/**
 * Each provider's source on its own: signed requests made with keys generated here give the
 * reports their payloads hold; unsigned ones throw missing_signature and mis-signed ones
 * invalid_signature, before the body is read.
 */
async function codeOf(source: ReportSource, request: SignedRequest): Promise<string> {
  try {
    await source.receive(request);
    return "accepted";
  } catch (error) {
    return error instanceof FlagpostError ? error.code : String(error);
  }
}

const SES_PROVIDER_ID = "0102018f6b3e29f4-3b1c2d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d-000000";

describe("SES via SNS", () => {
  const sns = fakeSns();
  const source = sesSource({ topicArns: [TOPIC_ARN], fetch: sns.fetch });
  const notification = (message: unknown, fields: Partial<Parameters<typeof snsRequest>[1]> = {}) =>
    snsRequest(sns.certificate.privateKey, { Message: JSON.stringify(message), ...fields });

  it("reads a bounce, with SignatureVersion 1 and 2", async () => {
    const expected = [
      {
        type: "bounced",
        source: "ses",
        recipient: "jane@example.com",
        emailId: EMAIL_ID,
        messageId: MESSAGE_ID,
        providerMessageId: SES_PROVIDER_ID,
        occurredAt: "2025-03-12T10:41:07.120Z",
        action: "failed",
        reason: "userunknown",
        status: "5.1.1",
        replyCode: "550",
        diagnostic: "550 5.1.1 user unknown",
        // SES said Permanent/General; the words name the reason, and SES's sub-type for it.
        bounce: { type: "Permanent", subType: "NoEmail", reason: "userunknown", message: "550 5.1.1 user unknown" },
      },
    ];
    expect(await source.receive(notification(SES.bounce, { SignatureVersion: "1" }))).toEqual(expected);
    expect(await source.receive(notification(SES.bounce, { SignatureVersion: "2", Subject: "Bounce" }))).toEqual(
      expected,
    );
  });

  it("reads complaints, deliveries and delays, one report per recipient", async () => {
    expect(await source.receive(notification(SES.complaint))).toEqual([
      expect.objectContaining({
        type: "complained",
        recipient: "omar@example.net",
        feedbackType: "abuse",
        reason: "feedback",
      }),
    ]);
    const delivered = await source.receive(notification(SES.delivery));
    expect(delivered.map((r) => [r.type, r.recipient, r.occurredAt])).toEqual([
      ["delivered", "jane@example.com", "2025-03-12T10:41:06.450Z"],
      ["delivered", "omar@example.net", "2025-03-12T10:41:06.450Z"],
    ]);
    expect(await source.receive(notification(SES.deliveryDelay))).toEqual([
      expect.objectContaining({ type: "delayed", recipient: "omar@example.net", status: "4.4.1" }),
    ]);
    expect(await source.receive(notification(SES.subscriptionSucceeded))).toEqual([]);
  });

  it("fetches the signing certificate once and keeps it", async () => {
    await source.receive(notification(SES.delivery));
    await source.receive(notification(SES.delivery));
    expect(sns.fetched.filter((url) => url === CERT_URL)).toHaveLength(1);
  });

  it("confirms a subscription by visiting its SubscribeURL", async () => {
    const subscribe = `https://sns.${REGION}.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${TOPIC_ARN}&Token=2336412f37`;
    const request = snsRequest(sns.certificate.privateKey, {
      Type: "SubscriptionConfirmation",
      Message: "You have chosen to subscribe to the topic.",
      SubscribeURL: subscribe,
      Token: "2336412f37",
    });
    expect(await source.receive(request)).toEqual([]);
    expect(sns.fetched).toContain(subscribe);
  });

  it("refuses what SNS did not sign, for a topic it was not given, or with a certificate from elsewhere", async () => {
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const message = JSON.stringify(SES.bounce);
    const unsigned = { headers: {}, body: Buffer.from(message) };
    expect(await codeOf(source, unsigned)).toBe("missing_signature");
    expect(await codeOf(source, { headers: {}, body: Buffer.from("\u0000garbage") })).toBe("missing_signature");
    expect(await codeOf(source, snsRequest(other, { Message: message }))).toBe("invalid_signature");
    const tampered = notification(SES.bounce);
    tampered.body = Buffer.from(tampered.body.toString().replace("Permanent", "Transient"));
    expect(await codeOf(source, tampered)).toBe("invalid_signature");
    const foreignTopic = "arn:aws:sns:eu-west-1:999999999999:attacker";
    expect(await codeOf(source, notification(SES.bounce, { TopicArn: foreignTopic }))).toBe("invalid_signature");
    const fetchedBefore = sns.fetched.length;
    for (const url of [
      "https://sns.eu-west-1.amazonaws.com.evil.example/cert.pem",
      "http://sns.eu-west-1.amazonaws.com/cert.pem",
      "https://sns.us-east-1.amazonaws.com/cert.pem", // not the topic's region
      "https://evil.example/sns.eu-west-1.amazonaws.com/cert.pem",
      "https://user@sns.eu-west-1.amazonaws.com/cert.pem",
      "https://sns.eu-west-1.amazonaws.com:8443/cert.pem",
      "https://sns.eu-west-1.amazonaws.com/cert.txt",
    ]) {
      expect(await codeOf(source, notification(SES.bounce, { SigningCertURL: url })), url).toBe("invalid_signature");
    }
    expect(sns.fetched.length).toBe(fetchedBefore); // none of those URLs was fetched
  });

  it("answers unavailable when the certificate cannot be fetched, and tries again a minute later", async () => {
    let up = false;
    let fetches = 0;
    const clock = fakeClock(Date.now());
    const flaky = sesSource({
      topicArns: [TOPIC_ARN],
      clock,
      fetch: async (url) => {
        fetches += 1;
        if (!up) throw new Error("network down");
        return sns.fetch(url);
      },
    });
    expect(await codeOf(flaky, notification(SES.bounce))).toBe("unavailable");
    up = true;
    // The failure is remembered for a minute: no fetch per request meanwhile.
    expect(await codeOf(flaky, notification(SES.bounce))).toBe("unavailable");
    expect(fetches).toBe(1);
    clock.advance(61_000);
    expect(await codeOf(flaky, notification(SES.bounce))).toBe("accepted");
    expect(fetches).toBe(2);
  });

  it("fetches at most 10 certificates a minute, however many new certificate URLs forged requests name", async () => {
    const clock = fakeClock(Date.now());
    const fetched: string[] = [];
    const source = sesSource({
      topicArns: [TOPIC_ARN],
      clock,
      fetch: async (url) => {
        fetched.push(url);
        return sns.fetch(url);
      },
    });
    const codes = new Set<string>();
    for (let n = 0; n < 300; n += 1) {
      const url = `https://sns.${REGION}.amazonaws.com/SimpleNotificationService-forged${n}.pem`;
      codes.add(await codeOf(source, notification(SES.bounce, { SigningCertURL: url })));
    }
    expect(fetched).toHaveLength(10);
    expect([...codes]).toEqual(["unavailable"]);
    // Each failed URL is remembered: asking again costs nothing, even in the next minute.
    clock.advance(30_000);
    await codeOf(source, notification(SES.bounce, { SigningCertURL: fetched[0] }));
    expect(fetched).toHaveLength(10);
    // The real certificate is fetched once the minute is over, and kept.
    clock.advance(31_000);
    expect(await codeOf(source, notification(SES.bounce))).toBe("accepted");
    expect(await codeOf(source, notification(SES.bounce))).toBe("accepted");
    expect(fetched.filter((u) => u === CERT_URL)).toHaveLength(1);
  });
});

describe("SendGrid signed event webhook", () => {
  const keys = sendgridKeys();
  const source = sendgridSource({ publicKey: keys.verificationKey });

  it("reads delivery outcomes and skips the rest", async () => {
    const reports = await source.receive(sendgridRequest(keys.privateKey, SENDGRID_EVENTS));
    expect(reports.map((r) => [r.type, r.recipient, r.bounce?.type, r.bounce?.subType])).toEqual([
      ["delivered", "jane@example.com", undefined, undefined],
      ["delayed", "omar@example.net", undefined, undefined],
      ["bounced", "omar@example.net", "Permanent", "NoEmail"],
      ["bounced", "lee@example.org", "Transient", "General"],
      ["bounced", "old@example.org", "Permanent", "Suppressed"],
      ["complained", "jane@example.com", undefined, undefined],
    ]);
    expect(reports[0]).toEqual({
      type: "delivered",
      source: "sendgrid",
      recipient: "jane@example.com",
      messageId: MESSAGE_ID,
      providerMessageId: "14c5d75ce93",
      occurredAt: "2025-03-12T10:41:02.000Z",
      action: "delivered",
      reason: "delivered",
      status: "2.0.0",
      replyCode: "250",
      diagnostic: "250 OK",
    });
  });

  it("refuses unsigned, mis-signed and tampered requests", async () => {
    const signed = sendgridRequest(keys.privateKey, SENDGRID_EVENTS);
    expect(await codeOf(source, { headers: {}, body: signed.body })).toBe("missing_signature");
    const other = sendgridKeys();
    expect(await codeOf(source, sendgridRequest(other.privateKey, SENDGRID_EVENTS))).toBe("invalid_signature");
    const retimed = { ...signed, headers: { ...signed.headers, "x-twilio-email-event-webhook-timestamp": "1" } };
    expect(await codeOf(source, retimed)).toBe("invalid_signature");
    const garbled = { ...signed, headers: { ...signed.headers, "x-twilio-email-event-webhook-signature": "bm9wZQ==" } };
    expect(await codeOf(source, garbled)).toBe("invalid_signature");
    expect(await codeOf(source, { ...signed, body: Buffer.from(signed.body.toString().replace("jane", "joan")) })).toBe(
      "invalid_signature",
    );
  });

  it("refuses a verification key that is not P-256", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ type: "spki", format: "der" });
    expect(() => sendgridSource({ publicKey: rsa.toString("base64") })).toThrow(/P-256/);
    expect(() => sendgridSource({ publicKey: "not a key" })).toThrow(/not a public key/);
  });
});

describe("Mailgun signed webhooks", () => {
  const source = mailgunSource({ signingKey: "key-3ax6xnjp29jd6fds4gc373sgvjxteol0" });

  it("reads failed (permanent and temporary), delivered and complained events", async () => {
    expect(
      await source.receive(mailgunRequest("key-3ax6xnjp29jd6fds4gc373sgvjxteol0", MAILGUN.failedPermanent)),
    ).toEqual([
      {
        type: "bounced",
        source: "mailgun",
        recipient: "jane@example.com",
        emailId: EMAIL_ID,
        messageId: MESSAGE_ID,
        occurredAt: "2025-03-12T10:41:04.501Z",
        action: "failed",
        reason: "userunknown",
        status: "5.1.1",
        replyCode: "550",
        diagnostic: "5.1.1 The email account that you tried to reach does not exist.",
        bounce: {
          type: "Permanent",
          subType: "NoEmail",
          reason: "userunknown",
          message: "5.1.1 The email account that you tried to reach does not exist.",
        },
      },
    ]);
    const sign = (data: unknown) => mailgunRequest("key-3ax6xnjp29jd6fds4gc373sgvjxteol0", data);
    expect((await source.receive(sign(MAILGUN.failedTemporary))).map((r) => r.type)).toEqual(["delayed"]);
    expect((await source.receive(sign(MAILGUN.delivered))).map((r) => r.type)).toEqual(["delivered"]);
    expect((await source.receive(sign(MAILGUN.complained))).map((r) => r.type)).toEqual(["complained"]);
    expect(await source.receive(sign(MAILGUN.opened))).toEqual([]);
  });

  it("refuses unsigned and mis-signed requests", async () => {
    const unsigned = { headers: {}, body: Buffer.from(JSON.stringify({ "event-data": MAILGUN.delivered })) };
    expect(await codeOf(source, unsigned)).toBe("missing_signature");
    expect(await codeOf(source, { headers: {}, body: Buffer.from("garbage") })).toBe("missing_signature");
    expect(await codeOf(source, mailgunRequest("another-key", MAILGUN.delivered))).toBe("invalid_signature");
  });
});

describe("Postmark with Basic credentials", () => {
  const source = postmarkSource({ user: "postmark", password: "s3cret-webhook-pass" });
  const send = (record: unknown) => source.receive(postmarkRequest("postmark", "s3cret-webhook-pass", record));

  it("reads bounces, deliveries and complaints, and skips other records", async () => {
    expect(await send(POSTMARK.bounce)).toEqual([
      {
        type: "bounced",
        source: "postmark",
        recipient: "jane@example.com",
        providerMessageId: "883953f4-6105-42a2-a16a-77a8eac79483",
        occurredAt: "2025-03-12T10:41:07.907Z",
        action: "failed",
        reason: "userunknown",
        status: "5.1.1",
        replyCode: "550",
        diagnostic: "550 5.1.1 The email account that you tried to reach does not exist.",
        bounce: {
          type: "Permanent",
          subType: "NoEmail",
          reason: "userunknown",
          message: "550 5.1.1 The email account that you tried to reach does not exist.",
        },
      },
    ]);
    expect((await send(POSTMARK.softBounce))[0]?.bounce).toMatchObject({ type: "Transient", subType: "MailboxFull" });
    expect((await send(POSTMARK.delivery)).map((r) => [r.type, r.recipient])).toEqual([
      ["delivered", "jane@example.com"],
    ]);
    expect((await send(POSTMARK.spamComplaint)).map((r) => [r.type, r.recipient, r.reason])).toEqual([
      ["complained", "jane@example.com", "feedback"],
    ]);
    expect(await send(POSTMARK.open)).toEqual([]);
    expect(await send(POSTMARK.autoResponder)).toEqual([]);
  });

  it("refuses missing and wrong credentials", async () => {
    const body = Buffer.from(JSON.stringify(POSTMARK.delivery));
    expect(await codeOf(source, { headers: {}, body })).toBe("missing_signature");
    expect(await codeOf(source, { headers: { authorization: "Bearer fp_x" }, body })).toBe("missing_signature");
    expect(await codeOf(source, postmarkRequest("postmark", "wrong", POSTMARK.delivery))).toBe("invalid_signature");
    expect(await codeOf(source, postmarkRequest("other", "s3cret-webhook-pass", POSTMARK.delivery))).toBe(
      "invalid_signature",
    );
  });
});
