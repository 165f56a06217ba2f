import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import {
  createFlagpost,
  type DeliveryReport,
  type Flagpost,
  FlagpostError,
  type Logger,
  memoryStorage,
  type ReportSource,
} from "../../src/index.js";
import { fakeClock } from "../support/fake-clock.js";
import { listen, type Running } from "../support/servers.js";

/**
 * The list of report sources is open: a provider flagpost has never heard of, written here with
 * nothing but the public API (`flagpost`'s ReportSource and FlagpostError, `flagpost/http`'s
 * `inbound` option), is served at `/v1/inbound/{name}` and moves an email like a built-in one.
 * Its signature is a real HMAC over timestamp and body, refused when stale or replayed through the
 * checks the HTTP layer hands it (the server's clock and token memory).
 */
const SECRET = "acme-webhook-secret";
const T0 = Date.parse("2026-03-01T12:00:00Z");
const quiet: Logger = { info() {}, warn() {}, error() {} };

function sign(timestamp: number, body: string, secret = SECRET): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

/** "Acme Mail": posts `{event, email_id, recipient}`, signed in `acme-signature: t=<unix s>,v1=<hex>`. */
function acmeMailSource(secret: string): ReportSource {
  return {
    name: "acme-mail",
    async receive(request, checks) {
      const header = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(request.headers["acme-signature"] ?? "");
      if (header === null) throw new FlagpostError("missing_signature", "The request carries no Acme signature");
      const [, timestamp, given] = header as unknown as [string, string, string];
      const body = Buffer.from(request.body).toString("utf8");
      const expected = sign(Number(timestamp), body, secret);
      if (!timingSafeEqual(Buffer.from(given), Buffer.from(expected)))
        throw new FlagpostError("invalid_signature", "The Acme signature does not verify");
      if (checks === undefined) throw new Error("the HTTP layer passes its checks");
      if (Math.abs(checks.clock.now() - Number(timestamp) * 1000) > 5 * 60 * 1000)
        throw new FlagpostError("invalid_signature", "The Acme signature is too old");
      if (!(await checks.firstUse("inbound:acme-mail", given, 10 * 60 * 1000)))
        throw new FlagpostError("invalid_signature", "The Acme signature was used before");
      const event = JSON.parse(body) as { event: string; email_id: string; recipient: string };
      const report: DeliveryReport = {
        type: event.event === "delivered" ? "delivered" : "delayed",
        source: "acme-mail",
        emailId: event.email_id,
        recipient: event.recipient,
      };
      return [report];
    },
  };
}

describe("a report source defined by the app", () => {
  const clock = fakeClock(T0);
  let fp: Flagpost;
  let http: Running;

  beforeEach(async () => {
    fp = createFlagpost({ storage: memoryStorage(), logger: quiet, clock });
    await fp.ready();
    http = await listen(createServer(toNodeHandler(fp, { rateLimit: false, inbound: [acmeMailSource(SECRET)] })));
  });
  afterEach(async () => {
    await http.close();
    await fp.close();
  });

  /** An email to jane@example.com, handed on (this app has no transport), so reports about her apply. */
  async function sentEmail(): Promise<string> {
    const { id } = await fp.emails.send({
      from: "hello@acme.example",
      to: "jane@example.com",
      subject: "Hi",
      text: "x",
    });
    const at = clock.now();
    await fp.storage.emails.transitionEmail(id, {
      from: ["queued"],
      to: "sent",
      sentAt: at,
      event: { type: "sent", at, detail: { accepted: ["jane@example.com"] } },
    });
    return id;
  }

  async function post(body: string, headers: Record<string, string>) {
    const response = await fetch(`${http.url}/v1/inbound/acme-mail`, { method: "POST", headers, body });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  it("is served at /v1/inbound/{name} and its report is applied to the email", async () => {
    const id = await sentEmail();
    const body = JSON.stringify({ event: "delivered", email_id: id, recipient: "jane@example.com" });
    const t = T0 / 1000;

    expect((await post(body, {})).status).toBe(401);
    expect((await post(body, { "acme-signature": `t=${t},v1=${sign(t, body, "wrong")}` })).status).toBe(403);
    expect((await fp.emails.get(id)).status).toBe("sent");

    const answer = await post(body, { "acme-signature": `t=${t},v1=${sign(t, body)}` });
    expect(answer).toEqual({ status: 200, body: { data: { received: 1, outcomes: { applied: 1 } } } });
    expect((await fp.emails.get(id)).status).toBe("delivered");
    const events = await fp.emails.events(id);
    expect(events.at(-1)).toMatchObject({ type: "delivered", detail: { source: "acme-mail" } });
  });

  it("refuses a replayed or stale signature through the checks the HTTP layer hands it", async () => {
    const id = await sentEmail();
    const body = JSON.stringify({ event: "delayed", email_id: id, recipient: "jane@example.com" });
    const t = T0 / 1000;
    const headers = { "acme-signature": `t=${t},v1=${sign(t, body)}` };
    expect((await post(body, headers)).status).toBe(200);
    const replay = await post(body, headers);
    expect(replay).toMatchObject({ status: 403, body: { error: { code: "invalid_signature" } } });
    clock.advance(6 * 60 * 1000);
    const later = t + 1;
    const stale = await post(body, { "acme-signature": `t=${later},v1=${sign(later, body)}` });
    expect(stale.body.error.message).toBe("The Acme signature is too old");
  });

  it("answers 404 for a name no source has, and refuses two sources with one name", async () => {
    const response = await fetch(`${http.url}/v1/inbound/postmark`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "Reports from postmark are not configured on this server",
    );
    expect(() => toNodeHandler(fp, { inbound: [acmeMailSource("a"), acmeMailSource("b")] })).toThrow(
      'Two report sources are named "acme-mail"',
    );
    expect(() => toNodeHandler(fp, { inbound: [{ ...acmeMailSource("a"), name: "Acme Mail" }] })).toThrow(
      /must be lower-case letters/,
    );
  });
});
