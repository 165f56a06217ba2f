import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import nodemailer from "nodemailer";
import { afterEach, beforeEach, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { listen, type Running } from "../support/servers.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { allVerified, type Receiver, startReceiver } from "../webhooks/support/receiver.js";

/**
 * Issue 28, one-click unsubscribe (RFC 8058) on every storage: an email sent with
 * `unsubscribe: true` through POST /v1/emails, the worker and nodemailer to a real SMTP server on
 * 127.0.0.1 carries List-Unsubscribe and List-Unsubscribe-Post; the link's GET changes nothing;
 * a POST such as Gmail sends suppresses the address once, with one signed `suppression.added`.
 */

/** What Gmail's one-click unsubscribe sends (RFC 8058 section 3.1): a form POST, no cookies, no key. */
const gmailPost = (url: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "List-Unsubscribe=One-Click",
  });

describeEachStorage("one-click unsubscribe", (storage: () => Storage) => {
  let sink: SmtpSink;
  let receiver: Receiver;
  let server: Running;
  let fp: Flagpost;
  let key: string;

  beforeEach(async () => {
    sink = await startSmtpSink();
    receiver = await startReceiver();
    // The server listens first: its address is the public URL the links point to.
    let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
    server = await listen(createServer((req, res) => handle(req, res)));
    const transport = nodemailerTransport(
      nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
      { closeTransporter: true },
    );
    fp = createFlagpost({
      storage: storage(),
      transport,
      logger: silentLogger,
      publicUrl: `${server.url}/`,
      emailWorker: { autoStart: false },
      webhooks: { allowPrivateNetworks: true, pollIntervalMs: 50 },
    });
    await fp.ready();
    handle = toNodeHandler(fp, { rateLimit: false });
    key = (await fp.keys.create({ scopes: ["full_access"] })).key;
    const hook = await fp.webhooks.create({ endpoint: `${receiver.url}/hook`, events: ["suppression.added"] });
    receiver.secrets = [hook.signing_secret];
  });
  afterEach(async () => {
    await fp.close();
    await server.close();
    await sink.close();
    await receiver.close();
  });

  /** Sends through POST /v1/emails and the worker; answers the id and the message as received. */
  async function sendToSink(body: Record<string, unknown>) {
    const before = sink.received.length;
    const response = await fetch(`${server.url}/v1/emails`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ from: "Acme <news@acme.example>", subject: "News", text: "Hello", ...body }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const { id } = (await response.json()) as { id: string };
    expect(await fp.emails.worker!.runOnce()).toBe(1);
    await sink.waitFor(before + 1);
    // Unfolded, as a mail client reads the header lines.
    const raw = sink.received
      .at(-1)!
      .raw.toString("utf8")
      .replace(/\r\n[ \t]+/g, " ");
    return { id, raw, link: /^List-Unsubscribe: <([^>]+)>$/m.exec(raw)?.[1] ?? "" };
  }

  it("adds the headers, shows a page on GET, and suppresses once on Gmail's POST", async () => {
    const { id, raw, link } = await sendToSink({ to: "Ann <Ann@Example.org>", unsubscribe: true });
    expect(link).toMatch(new RegExp(`^${server.url}/v1/unsubscribe/${id}\\.[A-Za-z0-9_-]{22}$`));
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);

    // A mail scanner following the link suppresses nobody.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<form method="post">');
    expect(html).toContain('name="List-Unsubscribe" value="One-Click"');
    expect(html).toContain("ann@example.org");
    expect(await fp.storage.suppressions.suppressedAmong(["ann@example.org"])).toEqual([]);

    const first = await gmailPost(link);
    expect(first.status).toBe(200);
    const second = await gmailPost(link);
    expect(second.status).toBe(200); // idempotent
    const entry = await fp.suppressions.get("ann@example.org");
    expect(entry).toMatchObject({ email: "ann@example.org", origin: "unsubscribe", source_id: id });
    const [delivery] = await receiver.waitFor(1);
    expect(allVerified(receiver.received)).toBe(true);
    expect(delivery!.payload).toMatchObject({
      type: "suppression.added",
      data: { id: entry.id, email: "ann@example.org", origin: "unsubscribe", source_id: id },
    });
    await delay(400); // several webhook polls: a second POST must not have emitted another
    expect(receiver.received.map((d) => d.payload.type)).toEqual(["suppression.added"]);
    expect((await fp.suppressions.list({ origin: "unsubscribe" })).data.map((s) => s.email)).toEqual([
      "ann@example.org",
    ]);
  });

  it("accepts the one-click body as multipart/form-data", async () => {
    const { link } = await sendToSink({ to: "bob@example.org", unsubscribe: true });
    const form = new FormData();
    form.set("List-Unsubscribe", "One-Click");
    expect((await fetch(link, { method: "POST", body: form })).status).toBe(200);
    expect(await fp.storage.suppressions.suppressedAmong(["bob@example.org"])).toEqual(["bob@example.org"]);
  });

  it("answers 404 alike to forged, foreign and malformed tokens, and 400 to a POST without the one-click body", async () => {
    const { link } = await sendToSink({ to: "cy@example.org", unsubscribe: true });
    const token = link.split("/").at(-1)!;
    const [id, mac] = token.split(".") as [string, string];
    const other = await fp.emails.send({ from: "news@acme.example", to: "dee@example.org", subject: "s", text: "t" });
    const flipped = `${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`;
    const bad = [`${id}.${flipped}`, `${other.id}.${mac}`, id, `${id}.${mac}.x`, "nothing", `${id}.${mac}x`];
    const bodies = new Set<string>();
    for (const forged of bad) {
      for (const ask of [
        () => fetch(`${server.url}/v1/unsubscribe/${forged}`),
        () => gmailPost(`${server.url}/v1/unsubscribe/${forged}`),
      ]) {
        const response = await ask();
        expect(response.status, forged).toBe(404);
        bodies.add(await response.text());
      }
    }
    expect(bodies.size).toBe(1); // nothing tells one kind of bad token from another
    for (const init of [
      { method: "POST" },
      { method: "POST", headers: { "content-type": "application/json" }, body: '{"List-Unsubscribe":"One-Click"}' },
      { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=No" },
    ])
      expect((await fetch(link, init)).status).toBe(400);
    expect((await fetch(link, { method: "DELETE" })).status).toBe(405);
    expect(await fp.storage.suppressions.suppressedAmong(["cy@example.org", "dee@example.org"])).toEqual([]);
    expect(receiver.received).toEqual([]);
  });
});
