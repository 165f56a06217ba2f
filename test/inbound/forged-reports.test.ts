import { createServer } from "node:http";
import { afterEach, beforeEach, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { postmarkSource } from "../../adapters/inbound/providers/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { listen } from "../support/servers.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { BOUNCE_DOMAIN, reportLoop } from "./support/report-loop.js";
import { postmarkRequest } from "./support/provider-requests.js";
import { arfFor, dsnFor } from "./support/reports-for.js";

/**
 * Forged reports (issue 24, item 2, "Reports"): flagpost sends for real through
 * its outbox to an SMTP sink, then reports are mailed over SMTP to its inbound listener, or posted
 * signed to a provider route. A report changes the email, or suppresses an address, only for a
 * recipient of the email's sent attempt, and only when it comes back to the email's own VERP
 * address (with its tag); anything else is stored unmatched.
 */
const POSTMARK = { user: "postmark", password: "forged-test-password" };

describeEachStorage("forged delivery reports", (storage: () => Storage) => {
  const loop = reportLoop(storage);
  const { sendOne, mailReport } = loop;
  let http: { url: string; close(): Promise<void> };
  let key: string;

  beforeEach(async () => {
    http = await listen(
      createServer(toNodeHandler(loop.fp, { rateLimit: false, inbound: [postmarkSource(POSTMARK)] })),
    );
    key = (await loop.fp.keys.create({ name: "test", scopes: ["full_access"] })).key;
  });
  afterEach(() => http.close());

  const failed = (recipient: string) => ({
    recipient,
    action: "failed" as const,
    status: "5.1.1",
    diagnostic: `550 5.1.1 <${recipient}>: Recipient address rejected: User unknown`,
  });
  const unmatchedCount = async () =>
    (await loop.fp.storage.deliveryReports.listUnmatchedReports({ limit: 100 })).length;
  const suppressed = (addresses: string[]) => loop.fp.storage.suppressions.suppressedAmong(addresses);

  it("a DSN naming someone the email was not sent to is unmatched and suppresses nobody", async () => {
    const { id, received } = await sendOne("ann@example.org");
    expect(received.envelope.from).toMatch(/^bounces\+[0-9a-f-]{36}-[a-z2-7]{10}@bounce\.acme\.example$/);
    for (const victim of ["ceo@acme.example", "cfo@acme.example"])
      await mailReport(received.envelope.from, dsnFor(received, failed(victim)));
    await mailReport(`fbl@${BOUNCE_DOMAIN}`, arfFor(received, "hr@acme.example"));
    expect(await unmatchedCount()).toBe(3);
    expect(await suppressed(["ceo@acme.example", "cfo@acme.example", "hr@acme.example"])).toEqual([]);
    expect((await loop.fp.emails.get(id)).status).toBe("sent");
  });

  it("a DSN to the email's VERP address with a wrong tag, or without one, is unmatched; with its own tag it applies", async () => {
    const { id, received } = await sendOne("bob@example.org");
    const own = received.envelope.from;
    for (const forged of [`bounces+${id}-aaaaaaaaaa@${BOUNCE_DOMAIN}`, `bounces+${id}@${BOUNCE_DOMAIN}`]) {
      const raw = dsnFor({ ...received, envelope: { ...received.envelope, from: forged } }, failed("bob@example.org"));
      await mailReport(forged, raw);
    }
    expect(await unmatchedCount()).toBe(2);
    expect((await loop.fp.emails.get(id)).status).toBe("sent");
    expect(await suppressed(["bob@example.org"])).toEqual([]);
    await mailReport(own, dsnFor(received, failed("bob@example.org")));
    expect((await loop.fp.emails.get(id)).status).toBe("bounced");
    expect(await suppressed(["bob@example.org"])).toEqual(["bob@example.org"]);
  });

  it("a bounce for a recipient of an email that is already final suppresses nobody", async () => {
    const { id, received } = await sendOne(["c1@example.org", "c2@example.org"]);
    for (const recipient of ["c1@example.org", "c2@example.org"])
      await mailReport(
        received.envelope.from,
        dsnFor(received, { recipient, action: "delivered", status: "2.0.0", diagnostic: "250 2.0.0 Ok" }),
      );
    expect((await loop.fp.emails.get(id)).status).toBe("delivered");
    await mailReport(received.envelope.from, dsnFor(received, failed("c1@example.org")));
    expect((await loop.fp.emails.get(id)).status).toBe("delivered");
    expect(await suppressed(["c1@example.org"])).toEqual([]);
  });

  it("a signed provider report naming someone else is unmatched; naming the recipient, it applies", async () => {
    loop.sink.onData = () => ({ code: 250, message: "2.0.0 Ok: queued as 7C1D2E3F4A" });
    const { id } = await sendOne("dee@example.org");
    const post = (email: string) =>
      fetch(`${http.url}/v1/inbound/postmark`, {
        method: "POST",
        ...postmarkRequest(POSTMARK.user, POSTMARK.password, {
          RecordType: "Bounce",
          Type: "HardBounce",
          TypeCode: 1,
          MessageID: "7C1D2E3F4A",
          Details: "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
          Email: email,
          BouncedAt: new Date().toISOString(),
        }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { data: { outcomes: object } } }));
    expect(await post("legal@acme.example")).toEqual({
      status: 200,
      body: { data: { received: 1, outcomes: { unmatched: 1 } } },
    });
    expect(await suppressed(["legal@acme.example"])).toEqual([]);
    expect((await post("dee@example.org")).body.data.outcomes).toEqual({ applied: 1 });
    expect((await loop.fp.emails.get(id)).status).toBe("bounced");
    expect(await suppressed(["dee@example.org"])).toEqual(["dee@example.org"]);
  });

  it("a report by hand (full_access) that names no recipient still applies to the whole email", async () => {
    const { id } = await sendOne(["e1@example.org", "e2@example.org"]);
    const response = await fetch(`${http.url}/v1/emails/${id}/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "bounced", detail: "550 5.1.1 mailbox unknown" }),
    });
    expect(response.status).toBe(200);
    expect((await loop.fp.emails.get(id)).status).toBe("bounced");
  });
});
