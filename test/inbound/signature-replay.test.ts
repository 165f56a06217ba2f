import { describe, expect, it } from "vitest";
import { memorySignatureChecks } from "../../adapters/inbound/providers/freshness.js";
import { mailgunSource } from "../../adapters/inbound/providers/mailgun.js";
import { sendgridSource } from "../../adapters/inbound/providers/sendgrid.js";
import { sesSource } from "../../adapters/inbound/providers/ses.js";
import { FlagpostError } from "../../src/errors.js";
import type { ReportSource } from "../../src/ports/report-source.js";
import { fakeClock } from "../support/fake-clock.js";
import { MAILGUN, SENDGRID_EVENTS, SES } from "./support/provider-payloads.js";
import {
  fakeSns,
  mailgunRequest,
  sendgridKeys,
  sendgridRequest,
  type SignedRequest,
  snsRequest,
  TOPIC_ARN,
} from "./support/provider-requests.js";

/**
 * A captured, validly signed provider request cannot be sent again: every signed timestamp must be
 * within 5 minutes of the receiver's clock (past or future), and a Mailgun token passes once.
 */
async function codeOf(source: ReportSource, request: SignedRequest): Promise<string> {
  try {
    await source.receive(request);
    return "accepted";
  } catch (error) {
    return error instanceof FlagpostError ? error.code : String(error);
  }
}

const T0 = Date.parse("2026-06-01T10:00:00.000Z");
const seconds = (ms: number) => String(Math.floor(ms / 1000));
const MINUTE = 60_000;

describe("Mailgun replay", () => {
  const KEY = "key-replay-test";

  it("accepts a token once", async () => {
    const source = mailgunSource({ signingKey: KEY }, memorySignatureChecks(fakeClock(T0)));
    const request = mailgunRequest(KEY, MAILGUN.failedPermanent, { timestamp: seconds(T0) });
    expect(await codeOf(source, request)).toBe("accepted");
    expect(await codeOf(source, request)).toBe("invalid_signature");
    // The same token under a new, validly signed timestamp is still a replay.
    const retimed = mailgunRequest(KEY, MAILGUN.delivered, {
      timestamp: seconds(T0 + 1000),
      token: (JSON.parse(request.body.toString()) as { signature: { token: string } }).signature.token,
    });
    expect(await codeOf(source, retimed)).toBe("invalid_signature");
  });

  it("refuses a timestamp more than 5 minutes old or ahead, and accepts one within", async () => {
    const source = mailgunSource({ signingKey: KEY }, memorySignatureChecks(fakeClock(T0)));
    const at = (ms: number) => codeOf(source, mailgunRequest(KEY, MAILGUN.delivered, { timestamp: seconds(ms) }));
    expect(await at(Date.parse("2020-01-01T00:00:00Z"))).toBe("invalid_signature");
    expect(await at(T0 - 5 * MINUTE - 1000)).toBe("invalid_signature");
    expect(await at(T0 + 5 * MINUTE + 1000)).toBe("invalid_signature");
    expect(await at(T0 - 4 * MINUTE)).toBe("accepted");
    expect(await at(T0 + 4 * MINUTE)).toBe("accepted");
    expect(await codeOf(source, mailgunRequest(KEY, MAILGUN.delivered, { timestamp: "soon" }))).toBe(
      "invalid_signature",
    );
  });

  it("forgets a token once its signature could no longer pass anyway", async () => {
    const clock = fakeClock(T0);
    const source = mailgunSource({ signingKey: KEY }, memorySignatureChecks(clock));
    const token = "a".repeat(50);
    expect(await codeOf(source, mailgunRequest(KEY, MAILGUN.delivered, { timestamp: seconds(T0), token }))).toBe(
      "accepted",
    );
    clock.advance(11 * MINUTE);
    const later = mailgunRequest(KEY, MAILGUN.delivered, { timestamp: seconds(T0 + 11 * MINUTE), token });
    expect(await codeOf(source, later)).toBe("accepted");
  });
});

describe("SendGrid replay", () => {
  const keys = sendgridKeys();
  const source = sendgridSource({ publicKey: keys.verificationKey }, { clock: fakeClock(T0) });
  const at = (ms: number) => codeOf(source, sendgridRequest(keys.privateKey, SENDGRID_EVENTS, seconds(ms)));

  it("refuses a signed timestamp more than 5 minutes old or ahead", async () => {
    expect(await at(T0 - 6 * MINUTE)).toBe("invalid_signature");
    expect(await at(T0 + 6 * MINUTE)).toBe("invalid_signature");
    expect(await at(T0 - 4 * MINUTE)).toBe("accepted");
    expect(await at(T0)).toBe("accepted");
  });
});

describe("SES/SNS replay", () => {
  it("refuses a Timestamp more than 5 minutes old or ahead, before fetching the certificate", async () => {
    const sns = fakeSns();
    const source = sesSource({ topicArns: [TOPIC_ARN], fetch: sns.fetch, clock: fakeClock(T0) });
    const at = (ms: number) =>
      codeOf(
        source,
        snsRequest(sns.certificate.privateKey, {
          Message: JSON.stringify(SES.bounce),
          Timestamp: new Date(ms).toISOString(),
        }),
      );
    expect(await at(T0 - 6 * MINUTE)).toBe("invalid_signature");
    expect(await at(T0 + 6 * MINUTE)).toBe("invalid_signature");
    expect(sns.fetched).toEqual([]);
    expect(await at(T0 - 4 * MINUTE)).toBe("accepted");
  });
});
