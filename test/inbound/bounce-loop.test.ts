import { expect, it } from "vitest";
import type { Storage } from "../../src/ports/storage/index.js";
import type { ReceivedMessage } from "../support/smtp-sink.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { BOUNCE_DOMAIN, FROM as from, reportLoop } from "./support/report-loop.js";
import { arfFor, dsnFor } from "./support/reports-for.js";

/**
 * The loop the issue asks for, over real SMTP on every storage: flagpost sends through its
 * outbox to a local SMTP sink (the "next hop"), the test answers as the recipient's mail system
 * would — a DSN or an ARF report mailed to flagpost's inbound listener, addressed to the VERP
 * envelope sender the sink saw — and the email moves: bounced (address suppressed, the next send
 * to it suppressed without reaching the sink), delivered, complained.
 */
describeEachStorage("DSN and ARF reports end to end", (storage: () => Storage) => {
  const loop = reportLoop(storage);
  const report = loop.mailReport;

  /** Sends one email through the outbox; its envelope sender is the email's tagged VERP address. */
  async function sendOne(to: string): Promise<{ id: string; received: ReceivedMessage }> {
    const sent = await loop.sendOne(to);
    expect(sent.received.envelope.from).toMatch(
      new RegExp(`^bounces\\+${sent.id}-[a-z2-7]{10}@bounce\\.acme\\.example$`),
    );
    return sent;
  }

  it("a DSN with Action: failed, 5.1.1 → bounced, the address suppressed, the next send to it suppressed", async () => {
    const { id, received } = await sendOne("ann@example.org");
    const dsn = dsnFor(received, {
      recipient: "ann@example.org",
      action: "failed",
      status: "5.1.1",
      diagnostic: "550 5.1.1 <ann@example.org>: Recipient address rejected: User unknown",
    });
    await report(received.envelope.from, dsn);

    const bounced = await loop.fp.emails.get(id);
    expect(bounced.status).toBe("bounced");
    const event = (await loop.fp.emails.events(id)).at(-1)!;
    expect(event.type).toBe("bounced");
    expect(await loop.fp.storage.suppressions.getSuppression("ann@example.org")).toMatchObject({
      email: "ann@example.org",
      origin: "bounce",
    });

    const again = await loop.fp.emails.send({ from, to: "Ann@Example.org", subject: "Again", text: "Hello?" });
    await loop.fp.emails.worker!.runOnce();
    expect(await loop.fp.emails.get(again.id)).toMatchObject({ status: "failed", failure_reason: "suppressed" });
    expect(loop.sink.received).toHaveLength(1); // the second email never reached the next hop
  });

  it("a DSN with Action: delivered → delivered", async () => {
    const { id, received } = await sendOne("bob@example.org");
    await report(
      received.envelope.from,
      dsnFor(received, {
        recipient: "bob@example.org",
        action: "delivered",
        status: "2.0.0",
        diagnostic: "250 2.0.0 OK",
      }),
    );
    const email = await loop.fp.emails.get(id);
    expect(email.status).toBe("delivered");
    expect(email.delivered_at).toBeDefined();
    expect(await loop.fp.storage.suppressions.getSuppression("bob@example.org")).toBeUndefined();
  });

  it("an ARF complaint → complained, the address suppressed", async () => {
    const { id, received } = await sendOne("carol@example.org");
    await report(`fbl@${BOUNCE_DOMAIN}`, arfFor(received, "carol@example.org"));
    expect((await loop.fp.emails.get(id)).status).toBe("complained");
    expect(await loop.fp.storage.suppressions.getSuppression("carol@example.org")).toMatchObject({
      origin: "complaint",
    });
  });

  it("a report about no email it knows is answered 250 and kept as unmatched", async () => {
    const { received } = await sendOne("dan@example.org");
    const stranger = {
      ...received,
      envelope: { ...received.envelope, from: `bounces+0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6aff@${BOUNCE_DOMAIN}` },
    };
    const raw = dsnFor(stranger, {
      recipient: "dan@example.org",
      action: "failed",
      status: "5.1.1",
      diagnostic: "550 no",
    }).replace(/^Message-ID:.*$/im, "Message-ID: <somebody-else@example.net>");
    await report(stranger.envelope.from, raw);
    expect(await loop.fp.storage.deliveryReports.listUnmatchedReports({ limit: 10 })).toHaveLength(1);
  });
});
