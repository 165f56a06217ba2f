import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import express from "express";
import { toExpress } from "../../adapters/http/index.js";
import { mailgunSource, postmarkSource, sendgridSource, sesSource } from "../../adapters/inbound/providers/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, startApp, type TestApp } from "../support/servers.js";
import { EMAIL_ID, MAILGUN, POSTMARK, SENDGRID_EVENTS, SES } from "./support/provider-payloads.js";
import {
  fakeSns,
  mailgunRequest,
  postmarkRequest,
  sendgridKeys,
  sendgridRequest,
  type SignedRequest,
  snsRequest,
  TOPIC_ARN,
} from "./support/provider-requests.js";

/**
 * POST /v1/inbound/{provider} over real HTTP: a signed request moves the email it reports on; an
 * unsigned or mis-signed one is refused (401/403) and changes nothing — not the email, not the
 * stored unmatched reports.
 */
describe("provider webhook routes", () => {
  let app: TestApp;
  const sns = fakeSns();
  const sendgrid = sendgridKeys();
  const MAILGUN_KEY = "key-route-test";

  beforeAll(async () => {
    app = await startApp({
      http: {
        rateLimit: false,
        inbound: [
          sesSource({ topicArns: [TOPIC_ARN], fetch: sns.fetch }),
          sendgridSource({ publicKey: sendgrid.verificationKey }),
          mailgunSource({ signingKey: MAILGUN_KEY }),
          postmarkSource({ user: "postmark", password: "route-test-password" }),
        ],
      },
    });
  });
  afterAll(() => app.close());

  /**
   * An email to jane@example.com, handed on (as a worker elsewhere would record it: this app has no
   * transport), so reports about its recipient apply; payloads are rewritten to name it.
   */
  async function email(): Promise<string> {
    const sent = await app.fp.emails.send({
      from: "Acme <hello@acme.example>",
      to: ["jane@example.com"],
      subject: "Welcome",
      text: "Hi",
    });
    const at = Date.now();
    await app.fp.storage.emails.transitionEmail(sent.id, {
      from: ["queued"],
      to: "sent",
      sentAt: at,
      event: { type: "sent", at, detail: { accepted: ["jane@example.com"] } },
    });
    return sent.id;
  }
  const about = <T>(payload: T, id: string): T => JSON.parse(JSON.stringify(payload).replaceAll(EMAIL_ID, id)) as T;

  async function post(provider: string, request: SignedRequest) {
    const response = await fetch(`${app.url}/v1/inbound/${provider}`, {
      method: "POST",
      headers: request.headers,
      body: request.body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  async function unmatchedCount(): Promise<number> {
    return (await app.fp.storage.deliveryReports.listUnmatchedReports({ limit: 1000 })).length;
  }

  it("SES: a signed delivery notification delivers the email; forged ones change nothing", async () => {
    const id = await email();
    const forged = snsRequest(generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey, {
      Message: JSON.stringify(about(SES.delivery, id)),
    }).body;
    const before = await unmatchedCount();
    expect(
      (
        await post("ses", {
          headers: { "content-type": "text/plain" },
          body: Buffer.from(JSON.stringify(about(SES.delivery, id))),
        })
      ).status,
    ).toBe(401);
    expect((await post("ses", { headers: {}, body: forged })).status).toBe(403);
    expect((await app.fp.emails.get(id)).status).toBe("sent");
    expect(await unmatchedCount()).toBe(before);

    const answer = await post(
      "ses",
      snsRequest(sns.certificate.privateKey, { Message: JSON.stringify(about(SES.delivery, id)) }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body.data.received).toBe(2);
    expect((await app.fp.emails.get(id)).status).toBe("delivered");
  });

  it("SendGrid: signed events apply; a mis-signed batch is refused whole", async () => {
    const id = await email();
    const events = about(SENDGRID_EVENTS.slice(0, 2), id); // processed, delivered for jane
    const other = sendgridKeys();
    const refused = await post("sendgrid", sendgridRequest(other.privateKey, events));
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "invalid_signature" } } });
    expect((await app.fp.emails.get(id)).status).toBe("sent");
    const answer = await post("sendgrid", sendgridRequest(sendgrid.privateKey, events));
    expect(answer.status).toBe(200);
    expect(answer.body.data.received).toBe(1);
    expect((await app.fp.emails.get(id)).status).toBe("delivered");
  });

  it("Mailgun: a signed permanent failure bounces the email", async () => {
    const id = await email();
    expect((await post("mailgun", mailgunRequest("wrong-key", about(MAILGUN.failedPermanent, id)))).status).toBe(403);
    expect((await app.fp.emails.get(id)).status).toBe("sent");
    const answer = await post("mailgun", mailgunRequest(MAILGUN_KEY, about(MAILGUN.failedPermanent, id)));
    expect(answer.status).toBe(200);
    expect((await app.fp.emails.get(id)).status).toBe("bounced");
  });

  it("Mailgun: a captured request sent again, or signed long ago, is refused and changes nothing", async () => {
    const id = await email();
    const delivered = mailgunRequest(MAILGUN_KEY, about(MAILGUN.delivered, id));
    expect((await post("mailgun", delivered)).status).toBe(200);
    const replayed = await post("mailgun", delivered);
    expect(replayed).toMatchObject({ status: 403, body: { error: { code: "invalid_signature" } } });
    const other = await email();
    const before = await unmatchedCount();
    const old = mailgunRequest(MAILGUN_KEY, about(MAILGUN.failedPermanent, other), { timestamp: "1577836800" });
    expect((await post("mailgun", old)).status).toBe(403);
    expect((await app.fp.emails.get(other)).status).toBe("sent");
    expect(await unmatchedCount()).toBe(before);
  });

  it("Postmark: a report that matches no email is kept and answered 200; bad credentials store nothing", async () => {
    const before = await unmatchedCount();
    expect((await post("postmark", postmarkRequest("postmark", "nope", POSTMARK.delivery))).status).toBe(403);
    expect(await unmatchedCount()).toBe(before);
    const answer = await post("postmark", postmarkRequest("postmark", "route-test-password", POSTMARK.delivery));
    expect(answer).toMatchObject({ status: 200, body: { data: { received: 1, outcomes: { unmatched: 1 } } } });
    expect(await unmatchedCount()).toBe(before + 1);
  });

  it("never answers 5xx to garbage, and refuses bodies over 5 MiB", async () => {
    for (const provider of ["ses", "sendgrid", "mailgun", "postmark"]) {
      for (const body of ["", "\u0000\u00ff", "[]", '{"Type":"Notification","Signature":1}', "x".repeat(10_000)]) {
        const response = await fetch(`${app.url}/v1/inbound/${provider}`, { method: "POST", body });
        expect([401, 403], `${provider} ${body.slice(0, 20)}`).toContain(response.status);
      }
      const big = await fetch(`${app.url}/v1/inbound/${provider}`, {
        method: "POST",
        body: "x".repeat(5 * 1024 * 1024 + 1),
      });
      expect(big.status).toBe(413);
    }
  });

  it("in Express, reads the raw body when mounted before express.json(), and says why it cannot after", async () => {
    const inbound = [mailgunSource({ signingKey: MAILGUN_KEY })];
    for (const [order, status] of [
      ["before", 200],
      ["after", 403],
    ] as const) {
      const server = express();
      if (order === "after") server.use(express.json());
      server.use(toExpress(app.fp, { rateLimit: false, inbound }));
      const running = await listen(createServer(server));
      try {
        const request = mailgunRequest(MAILGUN_KEY, MAILGUN.opened);
        const response = await fetch(`${running.url}/v1/inbound/mailgun`, { method: "POST", ...request });
        const body = (await response.json()) as { error?: { message: string } };
        expect(response.status, order).toBe(status);
        if (status === 403) expect(body.error?.message).toContain("express.json()");
      } finally {
        await running.close();
      }
    }
  });

  it("answers 404 for a provider this server has no secret for", async () => {
    const bare = await startApp({ http: { rateLimit: false } });
    try {
      const response = await fetch(`${bare.url}/v1/inbound/mailgun`, {
        method: "POST",
        body: mailgunRequest(MAILGUN_KEY, MAILGUN.delivered).body,
      });
      expect(response.status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
