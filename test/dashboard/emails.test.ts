import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import type { SendEmailRequest } from "../../src/emails/index.js";
import { createTestStorage, type TestDatabase } from "../support/databases.js";
import { startApp, type TestApp } from "../support/servers.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { type Browser, connect, launchBrowser } from "./browser.js";

/**
 * The Emails page against a real server on SQLite whose outbox sends to a real SMTP server on
 * 127.0.0.1: emails reach each of the ten states the page tells apart (through the sink's
 * answers, reports, scheduling, cancelation and the suppression list), and the page shows each
 * with its chip and each email's history as a timeline.
 */

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 50 });

/** Outside a test (beforeAll) expect.poll is not available: waits until `read()` answers `want`. */
async function until<T>(read: () => Promise<T>, want: T): Promise<void> {
  let got: T | undefined;
  for (let i = 0; i < 300; i++) {
    got = await read();
    if (got === want) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`still ${String(got)}, expected ${String(want)}`);
}

const mail = (to: string, subject: string, extra: Partial<SendEmailRequest> = {}): SendEmailRequest => ({
  from: "Shop <shop@example.com>",
  to,
  subject,
  text: `Hello ${to}`,
  ...extra,
});

describe("dashboard: emails", { timeout: 90_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  let sink: SmtpSink;
  let database: TestDatabase;
  let release: () => void = () => undefined;
  /** Subject → the state its chip must show. */
  const expected = new Map<string, string>();
  const ids = new Map<string, string>();

  const lastEvent = async (id: string) =>
    ((await (await app.call("GET", `/v1/emails/${id}`)).json()) as { status: string; last_event: string }).last_event;

  async function send(request: SendEmailRequest, state: string): Promise<string> {
    const res = await app.call("POST", "/v1/emails", request);
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    expected.set(request.subject, state);
    ids.set(request.subject, id);
    return id;
  }

  beforeAll(async () => {
    sink = await startSmtpSink();
    sink.onRecipient = (address) =>
      address === "gone@example.org"
        ? { code: 550, message: "5.1.1 no such user" }
        : address === "busy@example.org"
          ? { code: 451, message: "4.7.1 try again later" }
          : undefined;
    sink.onData = (message) =>
      message.parsed.subject === "Refused at DATA" ? { code: 554, message: "5.7.1 spam" } : undefined;
    const created = await createTestStorage("sqlite");
    database = created.database;
    const transport = nodemailerTransport(
      nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true, pool: true }),
      { name: "smtp", closeTransporter: true },
    );
    [app, browser] = await Promise.all([
      startApp({
        storage: created.storage,
        transport,
        // One retry an hour: a deferred email stays "delivery delayed" for the whole test.
        emailWorker: { pollIntervalMs: 50, retry: { schedule: [3_600_000] } },
      }),
      launchBrowser(),
    ]);

    await app.call("POST", "/v1/suppressions", { email: "blocked@example.org" });
    const sent = await send(mail("ann@example.org", "Your receipt"), "sent");
    const delivered = await send(mail("dee@example.org", "Welcome aboard"), "delivered");
    const complained = await send(mail("cai@example.org", "Weekly news"), "complained");
    const bounced = await send(mail("gone@example.org", "Lost letter"), "bounced");
    const failed = await send(mail("fay@example.org", "Refused at DATA"), "failed");
    const delayed = await send(mail("busy@example.org", "Slow server"), "delivery_delayed");
    const suppressed = await send(mail("blocked@example.org", "Not wanted"), "suppressed");
    const later = new Date(Date.now() + 86_400_000).toISOString();
    await send(mail("sam@example.org", "See you tomorrow", { scheduled_at: later }), "scheduled");
    const canceled = await send(mail("cat@example.org", "Never mind", { scheduled_at: later }), "canceled");
    // Text a browser must never read as markup.
    await send(
      mail("eve@example.org", `<img src=x onerror="document.title='pwned'">`, {
        html: "<script>alert(1)</script><b>hi</b>",
      }),
      "sent",
    );
    expect((await app.call("POST", `/v1/emails/${canceled}/cancel`)).status).toBe(200);

    for (const [id, last] of [
      [sent, "sent"],
      [delivered, "sent"],
      [complained, "sent"],
      [bounced, "bounced"],
      [failed, "failed"],
      [delayed, "delivery_delayed"],
      [suppressed, "suppressed"],
    ] as const)
      await until(() => lastEvent(id), last);
    await until(() => lastEvent(ids.get(`<img src=x onerror="document.title='pwned'">`)!), "sent");
    for (const [id, type] of [
      [delivered, "delivered"],
      [complained, "delivered"],
      [complained, "complained"],
    ] as const)
      expect((await app.call("POST", `/v1/emails/${id}/events`, { type, detail: `report: ${type}` })).status).toBe(200);

    // The last one stays queued: the SMTP server holds its answer until the test ends.
    const held = sink.hold();
    release = () => held.release();
    await send(mail("quinn@example.org", "Still on its way"), "queued");
    await held.arrived(sink.received.length + 1);
  });

  afterAll(async () => {
    release();
    await browser?.close();
    await app?.close();
    await sink?.close();
    await database?.drop();
  });

  it("lists every email with the chip of its state", async () => {
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Emails", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Emails" }).waitFor();
    expect(await page.getByRole("link", { name: "Emails", exact: true }).getAttribute("aria-current")).toBe("page");
    const rows = page.locator("#emails-view tbody tr");
    await poll(() => rows.count()).toBe(expected.size);

    const shown = new Map<string, string>();
    for (const row of await rows.all()) {
      const subject = (await row.locator('td[data-label="Subject"]').textContent()) ?? "";
      shown.set(subject, (await row.locator("[data-chip=email]").getAttribute("data-state")) ?? "");
    }
    expect(shown).toEqual(expected);
    expect(new Set(shown.values())).toEqual(
      new Set([
        "queued",
        "scheduled",
        "sent",
        "delivered",
        "delivery_delayed",
        "bounced",
        "complained",
        "failed",
        "canceled",
        "suppressed",
      ]),
    );
    const chip = (subject: string) =>
      page.locator("#emails-view tr", { hasText: subject }).locator("[data-chip=email]");
    expect(await chip("Slow server").textContent()).toBe("Delivery delayed");
    expect(await chip("Not wanted").getAttribute("title")).toBe(
      "status: failed · last event: suppressed · reason: suppressed",
    );
    // Newest first, as GET /v1/emails answers.
    expect(await rows.first().textContent()).toContain("Still on its way");

    // The subject with markup is text: no image was made, nothing ran.
    expect(await page.locator("#emails-view img").count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");

    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("shows one email with its timeline of events", async () => {
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.evaluate('location.hash = "#/emails"');
    await page.getByRole("link", { name: "Weekly news" }).click();
    await page.getByRole("heading", { level: 1, name: "Weekly news" }).waitFor();
    const items = page.locator(".timeline-item");
    await poll(() => items.count()).toBe(4);
    const api = (await (await app.call("GET", `/v1/emails/${ids.get("Weekly news")}/events`)).json()) as {
      data: { type: string }[];
    };
    expect(api.data.map((e) => e.type)).toEqual(["queued", "sent", "delivered", "complained"]);
    expect(await items.evaluateAll((els) => els.map((el) => el.getAttribute("data-type")))).toEqual(
      api.data.map((e) => e.type),
    );
    // Each event with its time and detail: the SMTP server's answer, the report's message.
    expect(await items.nth(1).textContent()).toMatch(/250/);
    expect(await items.nth(3).textContent()).toContain("report: complained");
    expect(await page.locator("#email-view [data-chip=email]").getAttribute("data-state")).toBe("complained");
    expect(await page.locator("#email-view .email-meta").textContent()).toContain("cai@example.org");

    // The bounce: the server's refusal is in the timeline.
    await page.evaluate(`location.hash = "#/emails/${ids.get("Lost letter")}"`);
    await page.getByRole("heading", { level: 1, name: "Lost letter" }).waitFor();
    await poll(() => items.evaluateAll((els) => els.map((el) => el.getAttribute("data-type")))).toEqual([
      "queued",
      "bounced",
    ]);
    expect(await items.nth(1).textContent()).toContain("no such user");
    // In words, not JSON: the refusal's reason, bounce type and the server's diagnostic, and the bounce.
    const refusal = items.nth(1).locator("[data-field=rejected] li");
    expect(await refusal.getAttribute("data-recipient")).toBe("gone@example.org");
    expect(await refusal.locator("[data-field=reason]").textContent()).toBe("userunknown · Permanent · 5.1.1");
    expect(await refusal.locator("[data-field=diagnostic]").textContent()).toContain("5.1.1 no such user");
    expect(await items.nth(1).locator("code").count()).toBe(0);
    const bounceFact = page.locator("#email-view .email-meta [data-field=bounce]");
    expect(await bounceFact.textContent()).toContain("Permanent · NoEmail · userunknown");
    // The refusal at RCPT put the address on the suppression list, which says why.
    await page.evaluate('location.hash = "#/suppressions"');
    const gone = page.locator('#suppressions-view tr[data-email="gone@example.org"]');
    await gone.waitFor();
    expect(await gone.locator("[data-field=reason]").textContent()).toBe("userunknown");
    expect(await gone.locator("[data-field=bounce-type]").textContent()).toBe(" · Permanent");
    expect(await gone.locator("[data-field=diagnostic]").textContent()).toContain("no such user");

    // The HTML body is shown as its source, never rendered.
    await page.evaluate(`location.hash = "#/emails/${ids.get(`<img src=x onerror="document.title='pwned'">`)}"`);
    await page.locator(".email-body summary", { hasText: "HTML body" }).click();
    await page.locator(".email-body pre", { hasText: "<script>alert(1)</script>" }).waitFor();
    expect(await page.locator("#email-view b, #email-view script, #email-view img").count()).toBe(0);

    // An id no email has.
    await page.evaluate('location.hash = "#/emails/0190aaaa-0000-7000-8000-000000000000"');
    await page.getByRole("heading", { level: 1, name: "Email not found" }).waitFor();
    expect(page.problems.filter((p) => !p.includes("404"))).toEqual([]);
    await page.close();
  });

  it("tells a key without emails:read why the page is empty", async () => {
    const { key } = await app.fp.keys.create({ name: "flags only", scopes: ["flags:read"] });
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, key);
    await page.getByRole("link", { name: "Emails", exact: true }).click();
    await page.getByRole("note").filter({ hasText: "lacks the emails:read scope" }).waitFor();
    expect(await page.locator("#emails-view table").isVisible()).toBe(false);
    await page.evaluate(`location.hash = "#/emails/${ids.get("Weekly news")}"`);
    await page.locator("#email-view").getByRole("note").filter({ hasText: "lacks the emails:read scope" }).waitFor();
    expect(await page.locator("#email-view .timeline-item").count()).toBe(0);
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("pages: Load more emails follows has_more", async () => {
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.evaluate('location.hash = "#/emails"');
    const rows = page.locator("#emails-view tbody tr");
    await poll(() => rows.count()).toBe(expected.size);
    expect(await page.getByRole("button", { name: "Load more emails" }).isVisible()).toBe(false);
    // 45 more (scheduled, so nothing is sent) make 56, 50 to a page.
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const batch = Array.from({ length: 45 }, (_, i) =>
      mail("pat@example.org", `Reminder ${i}`, { scheduled_at: later }),
    );
    expect((await app.call("POST", "/v1/emails/batch", batch)).status).toBe(200);
    await page.getByRole("button", { name: "Refresh" }).click();
    await poll(() => rows.count()).toBe(50);
    await page.getByRole("button", { name: "Load more emails" }).click();
    await poll(() => rows.count()).toBe(56);
    // The focus moves to the first email Load more added.
    expect(
      await page.evaluate(
        'document.activeElement?.closest("tr") === document.querySelectorAll("#emails-view tbody tr")[50]',
      ),
    ).toBe(true);
    expect(await page.getByRole("button", { name: "Load more emails" }).isVisible()).toBe(false);
    expect(page.problems).toEqual([]);
    await page.close();
  });
});
