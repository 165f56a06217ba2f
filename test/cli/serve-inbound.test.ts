import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import nodemailer from "nodemailer";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli, spawnCli, waitForOutput } from "../support/cli.js";
import { closedPort, type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { MAILGUN } from "../inbound/support/provider-payloads.js";
import { mailgunRequest } from "../inbound/support/provider-requests.js";
import { dsnFor } from "../inbound/support/reports-for.js";

const API_KEY = "serve-inbound-test-key-0123456789";
const MAILGUN_KEY = "serve-inbound-mailgun-key";

let dir: string;
let sink: SmtpSink;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "flagpost-cli-inbound-"));
  sink = await startSmtpSink();
});
afterEach(async () => {
  await sink.close();
  await rm(dir, { recursive: true, force: true });
});

function portIsOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("flagpost serve: delivery reports", () => {
  it("runs the inbound SMTP listener and the provider webhooks, and closes the listener on SIGTERM", async () => {
    const smtpPort = await closedPort();
    const child = spawnCli(["serve"], {
      FLAGPOST_DB: join(dir, "flagpost.db"),
      PORT: "0",
      FLAGPOST_API_KEY: API_KEY,
      FLAGPOST_SMTP_URL: `${sink.url}?pool=false`,
      FLAGPOST_BOUNCE_DOMAIN: "bounce.acme.example",
      FLAGPOST_INBOUND_SMTP_PORT: String(smtpPort),
      FLAGPOST_INBOUND_MAILGUN_SIGNING_KEY: MAILGUN_KEY,
    });
    const output = await waitForOutput(child, /"msg":"listening"/);
    expect(output).toContain(`"msg":"inbound smtp listening","host":"127.0.0.1","port":${smtpPort}`);
    const url = (JSON.parse(output.split("\n").find((l) => l.includes('"msg":"listening"'))!) as { url: string }).url;
    const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
    const statusOf = async (id: string) =>
      ((await (await fetch(`${url}/v1/emails/${id}`, { headers })).json()) as { status: string }).status;
    async function sendAndWait(to: string): Promise<string> {
      const body = JSON.stringify({ from: "Acme <hello@acme.example>", to, subject: "Hi", text: "Hello" });
      const { id } = (await (await fetch(`${url}/v1/emails`, { method: "POST", headers, body })).json()) as {
        id: string;
      };
      for (let round = 0; (await statusOf(id)) === "queued" && round < 200; round += 1) await delay(25);
      expect(await statusOf(id)).toBe("sent");
      return id;
    }

    // A DSN mailed to the listener bounces the email.
    const bounced = await sendAndWait("ann@example.org");
    const received = sink.received.at(-1)!;
    const mta = nodemailer.createTransport({ host: "127.0.0.1", port: smtpPort, secure: false, ignoreTLS: true });
    const dsn = dsnFor(received, {
      recipient: "ann@example.org",
      action: "failed",
      status: "5.1.1",
      diagnostic: "550 5.1.1 unknown",
    });
    await mta.sendMail({ envelope: { from: "", to: received.envelope.from }, raw: dsn });
    mta.close();
    expect(await statusOf(bounced)).toBe("bounced");

    // A signed Mailgun webhook delivers another.
    const delivered = await sendAndWait("bob@example.org");
    const event = JSON.parse(
      JSON.stringify(MAILGUN.delivered).replaceAll("0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6a80", delivered),
    );
    // Mailgun names the envelope sender the email went out with: its VERP address, tag included.
    const sender = sink.received.at(-1)!.envelope.from;
    const request = mailgunRequest(MAILGUN_KEY, {
      ...event,
      recipient: "bob@example.org",
      envelope: { ...event.envelope, sender },
    });
    const answer = await fetch(`${url}/v1/inbound/mailgun`, {
      method: "POST",
      headers: request.headers,
      body: request.body,
    });
    expect(answer.status).toBe(200);
    expect(await statusOf(delivered)).toBe("delivered");
    // The other providers were not configured.
    expect((await fetch(`${url}/v1/inbound/sendgrid`, { method: "POST", body: "[]" })).status).toBe(404);

    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    expect(await portIsOpen(smtpPort)).toBe(false);
  });

  it("refuses settings it cannot use", async () => {
    const base = { FLAGPOST_DB: join(dir, "flagpost.db"), PORT: "0" };
    const port = await runCli(["serve"], { ...base, FLAGPOST_INBOUND_SMTP_PORT: "smtp" });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('FLAGPOST_INBOUND_SMTP_PORT must be a port number, not "smtp"');
    const postmark = await runCli(["serve"], { ...base, FLAGPOST_INBOUND_POSTMARK_USER: "pm" });
    expect(postmark.code).toBe(2);
    expect(postmark.stderr).toContain(
      "FLAGPOST_INBOUND_POSTMARK_USER and FLAGPOST_INBOUND_POSTMARK_PASSWORD go together",
    );
    const topics = await runCli(["serve"], { ...base, FLAGPOST_INBOUND_SES_TOPIC_ARNS: "my-topic" });
    expect(topics.code).toBe(2);
    expect(topics.stderr).toContain("FLAGPOST_INBOUND_SES_TOPIC_ARNS must list SNS topic ARNs");
  });
});
