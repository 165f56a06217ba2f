import { describe, expect, it } from "vitest";
import { postmarkSource } from "../../adapters/inbound/providers/postmark.js";
import { sesSource } from "../../adapters/inbound/providers/ses.js";
import { FlagpostError } from "../../src/errors.js";
import type { ReportSource } from "../../src/ports/report-source.js";
import { POSTMARK, SES } from "./support/provider-payloads.js";
import { fakeSns, postmarkRequest, type SignedRequest, snsRequest, TOPIC_ARN } from "./support/provider-requests.js";

async function messageOf(source: ReportSource, request: SignedRequest): Promise<string> {
  try {
    await source.receive(request);
    return "accepted";
  } catch (error) {
    return error instanceof FlagpostError ? `${error.code}: ${error.message}` : String(error);
  }
}

/** A refused provider request says why in a sentence that reads (issue 25, item 6). */
describe("inbound refusal messages", () => {
  it("SNS: a topic not accepted here", async () => {
    const sns = fakeSns();
    const source = sesSource({ topicArns: [TOPIC_ARN], fetch: sns.fetch });
    const foreign = "arn:aws:sns:eu-west-1:999999999999:attacker";
    const request = snsRequest(sns.certificate.privateKey, { Message: JSON.stringify(SES.bounce), TopicArn: foreign });
    expect(await messageOf(source, request)).toBe(
      `invalid_signature: The SNS message is refused: its topic "${foreign}" is not one this server accepts`,
    );
  });

  it("Postmark: wrong Basic credentials", async () => {
    const source = postmarkSource({ user: "postmark", password: "s3cret-webhook-pass" });
    expect(await messageOf(source, postmarkRequest("postmark", "wrong", POSTMARK.delivery))).toBe(
      "invalid_signature: The Basic credentials do not match the user and password set",
    );
  });
});
