import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { webhookOptionsFrom } from "../../cli/webhook-settings.js";
import { WebhookSender } from "../../src/webhooks/sender.js";
import { signatureOf, signingSecrets } from "../../src/webhooks/signing.js";

/** The sender against real servers on 127.0.0.1: deadlines, how much of an answer is read, what is kept. */

const servers: Server[] = [];
const senders: WebhookSender[] = [];

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function sender(timeoutMs = 10_000): WebhookSender {
  const s = new WebhookSender({
    allowPrivateNetworks: true,
    resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    timeoutMs,
  });
  senders.push(s);
  return s;
}

afterEach(async () => {
  for (const s of senders.splice(0)) s.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

describe("the webhook sender", () => {
  it("gives up at its deadline when the endpoint does not answer: status 0 and why", async () => {
    const url = await serve(() => undefined); // takes the request, never answers
    const result = await sender(300).send(`${url}/slow`, {}, "{}");
    expect(result.statusCode).toBe(0);
    expect(result.response).toContain("timed out after 300 ms");
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
  });

  it("reads at most 64 KiB of an answer and keeps its first 1 KiB; NUL bytes are stored as U+FFFD", async () => {
    let written = 0;
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write(Buffer.concat([Buffer.from("a\u0000b"), Buffer.alloc(2000, "x")]));
      // An endless answer: the sender must stop reading on its own.
      const more = () => {
        if (written > 8 * 1024 * 1024 || res.destroyed) return void res.end();
        written += 64 * 1024;
        if (res.write(Buffer.alloc(64 * 1024, "y"))) setImmediate(more);
        else res.once("drain", more);
      };
      more();
    });
    const result = await sender().send(`${url}/big`, {}, "{}");
    expect(result.statusCode).toBe(200);
    expect(result.response).toBe(`a\uFFFDb${"x".repeat(1021)}`);
    expect(written).toBeLessThan(8 * 1024 * 1024);
  });

  it("reports a refused connection as status 0 with the reason, and sends the body with the headers given", async () => {
    let seen: { headers: Record<string, unknown>; body: string } | undefined;
    const url = await serve((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen = { headers: req.headers, body };
        res.writeHead(204).end();
      });
    });
    const ok = await sender().send(
      `${url}/ok`,
      { "webhook-id": "msg_1", "content-type": "application/json" },
      '{"é":1}',
    );
    expect(ok).toMatchObject({ statusCode: 204, response: "" });
    expect(seen).toMatchObject({ headers: { "webhook-id": "msg_1", "content-length": "8" }, body: '{"é":1}' });
    const closed = await serve(() => undefined);
    servers.at(-1)!.close();
    servers.at(-1)!.closeAllConnections();
    const refused = await sender().send(closed, {}, "{}");
    expect(refused.statusCode).toBe(0);
    expect(refused.response).toMatch(/ECONNREFUSED/);
  });
});

describe("signing", () => {
  it("signs id.timestamp.body with the key the secret encodes (Standard Webhooks' published example)", () => {
    // From the Standard Webhooks specification's test vectors.
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = '{"test": 2432232314}';
    expect(signatureOf(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)).toBe(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
  });

  it("signs with the previous secret only until it expires", () => {
    const webhook = {
      secret: "whsec_bmV3",
      previousSecret: "whsec_b2xk",
      previousSecretExpiresAt: Date.parse("2026-06-02T10:00:00.000Z"),
    } as Parameters<typeof signingSecrets>[0];
    const expiry = Date.parse("2026-06-02T10:00:00.000Z");
    expect(signingSecrets(webhook, expiry - 1)).toEqual(["whsec_bmV3", "whsec_b2xk"]);
    expect(signingSecrets(webhook, expiry)).toEqual(["whsec_bmV3"]);
  });
});

describe("flagpost serve's webhook settings", () => {
  it("reads FLAGPOST_WEBHOOK_ALLOW_PRIVATE and FLAGPOST_WEBHOOK_RETRY_SCHEDULE, refusing what it cannot use", () => {
    expect(webhookOptionsFrom({})).toEqual({});
    expect(
      webhookOptionsFrom({ FLAGPOST_WEBHOOK_ALLOW_PRIVATE: "true", FLAGPOST_WEBHOOK_RETRY_SCHEDULE: "1s, 2s,5m" }),
    ).toEqual({ allowPrivateNetworks: true, retrySchedule: [1000, 2000, 300_000] });
    expect(webhookOptionsFrom({ FLAGPOST_WEBHOOK_ALLOW_PRIVATE: "FALSE" })).toEqual({ allowPrivateNetworks: false });
    expect(() => webhookOptionsFrom({ FLAGPOST_WEBHOOK_ALLOW_PRIVATE: "yes" })).toThrow(/true or false/);
    expect(() => webhookOptionsFrom({ FLAGPOST_WEBHOOK_RETRY_SCHEDULE: "5s,soon" })).toThrow(
      /FLAGPOST_WEBHOOK_RETRY_SCHEDULE: .*"soon"/,
    );
  });
});
