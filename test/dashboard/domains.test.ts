import nodemailer from "nodemailer";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { splitTxt } from "../../src/domains/dns-records.js";
import { memoryStorage } from "../../src/memory/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { createTestStorage, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { startApp, type TestApp } from "../support/servers.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { startTestDns } from "../domains/support/test-dns.js";
import { artifactPath, type Browser, connect, launchBrowser } from "./browser.js";

/**
 * The Domains page against a real server and a DNS server on 127.0.0.1: a domain added in the
 * page shows the records to publish; published (as read from the page) they verify, one missing
 * fails; a domain the reputation guard paused (real sends through an SMTP sink, a Permanent
 * bounce report) shows its rates and Resume; Copy reaches the clipboard; a key without
 * full_access reads a note. On memory, SQLite and PostgreSQL.
 */

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 50 });

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

/** The records as the page shows them: relative name, type, value (priority for the MX). */
async function recordsOnPage(page: Page) {
  const rows = page.locator("#domain-view .records-table tbody tr");
  await rows.first().waitFor();
  return rows.evaluateAll((trs) =>
    trs.map((tr) => ({
      record: tr.querySelector('[data-label="Record"]')!.textContent!,
      type: tr.querySelector('[data-label="Type"]')!.textContent!,
      name: tr.querySelector(".record-name")!.textContent!,
      value: tr.querySelector(".record-value")!.textContent!,
      priority: tr.querySelector('[data-label="Priority"]')!.textContent!,
      status: tr.querySelector("[data-chip=record]")!.getAttribute("data-state"),
    })),
  );
}

type DnsServer = Awaited<ReturnType<typeof startTestDns>>;

function publish(dns: DnsServer, domain: string, records: Awaited<ReturnType<typeof recordsOnPage>>) {
  for (const record of records) {
    const host = `${record.name}.${domain}`;
    if (record.type === "MX") dns.zone.mx.set(host, [{ exchange: record.value, priority: Number(record.priority) }]);
    else dns.zone.txt.set(host, [splitTxt(record.value)]);
  }
}

async function addDomain(page: Page, name: string) {
  await page.getByRole("textbox", { name: "Domain", exact: true }).fill(name);
  await page.getByRole("button", { name: "Add domain" }).click();
  await page.getByRole("heading", { level: 1, name }).waitFor();
}

function describeDomainsPage(backend: "memory" | "sqlite" | "postgres", register: () => void) {
  const title = `dashboard: domains (${backend})`;
  if (backend === "memory") describe(title, register);
  else describeIfBackend(backend, title, register);
}

for (const backend of ["memory", "sqlite", "postgres"] as const) {
  describeDomainsPage(backend, () => {
    let app: TestApp;
    let dns: DnsServer;
    let sink: SmtpSink;
    let database: TestDatabase | undefined;

    beforeAll(async () => {
      let storage: Storage = memoryStorage();
      if (backend !== "memory") ({ storage, database } = await createTestStorage(backend));
      [dns, sink] = await Promise.all([startTestDns(), startSmtpSink()]);
      const transport = nodemailerTransport(
        nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
        { closeTransporter: true },
      );
      app = await startApp({
        storage,
        transport,
        emailWorker: { autoStart: false },
        domains: {
          resolver: dns.resolver,
          mxHost: "mx.flagpost.test",
          spf: "ip4:127.0.0.1",
          autoStart: false,
          // One Permanent bounce is more than 5% of a window of 10 sends: paused.
          reputation: { window: 10, bounceRate: 0.05, complaintRate: 0.05 },
        },
      });
    }, 30_000);
    afterAll(async () => {
      await app?.close();
      await Promise.all([dns?.close(), sink?.close()]);
      await database?.drop();
    });

    it("adds domains, shows their records, and Verify turns them verified or failed", { timeout: 60_000 }, async () => {
      const page = await browser.newPage(1280);
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Domains" }).click();
      await page.getByRole("heading", { level: 1, name: "Domains" }).waitFor();
      await page.getByText("No domains yet").waitFor();
      const currentSection = () =>
        page.getByRole("navigation", { name: "Sections" }).locator('[aria-current="page"]').textContent();
      expect(await currentSection()).toBe("Domains");

      // Refused in the page (empty), then by the server, its words under the field that is wrong.
      const add = page.getByRole("button", { name: "Add domain" });
      await add.click();
      await page.locator("#domain-name-error", { hasText: "Type the domain" }).waitFor();
      await page.getByRole("textbox", { name: "Domain", exact: true }).fill("not a domain");
      await add.click();
      await page
        .locator("#domain-name-error", { hasText: '"name" must be a domain name such as example.com' })
        .waitFor();
      expect(await page.getByRole("textbox", { name: "Domain", exact: true }).getAttribute("aria-invalid")).toBe(
        "true",
      );
      await page.getByRole("textbox", { name: "Domain", exact: true }).fill("shop.example");
      await page.getByLabel("Return path (optional)").fill("not one label");
      await add.click();
      await page
        .locator("#domain-return-path-error", { hasText: '"custom_return_path" must be one DNS label' })
        .waitFor();
      await page.getByLabel("Return path (optional)").fill("");

      await addDomain(page, "shop.example");
      await page.getByRole("status").filter({ hasText: "Added shop.example" }).waitFor();
      const listed = (await (await app.call("GET", "/v1/domains")).json()) as { data: { id: string; name: string }[] };
      expect(listed.data.map((d) => d.name)).toEqual(["shop.example"]);
      const shopId = listed.data[0]!.id;
      const api = (await (await app.call("GET", `/v1/domains/${shopId}`)).json()) as {
        records: { record: string; type: string; name: string; value: string; priority?: number }[];
      };
      const shown = await recordsOnPage(page);
      expect(shown).toEqual(
        api.records.map((r) => ({
          record: r.record,
          type: r.type,
          name: r.name,
          value: r.value,
          priority: r.priority === undefined ? "—" : String(r.priority),
          status: "not_started",
        })),
      );
      expect(await currentSection()).toBe("Domains");
      const summaryChip = page.locator("#domain-view .domain-summary [data-chip=domain]");
      expect(await summaryChip.textContent()).toBe("Not started");

      // Published as the page shows them: verified, every record with it.
      publish(dns, "shop.example", shown);
      await page.getByRole("button", { name: "Verify" }).click();
      await poll(() => summaryChip.getAttribute("data-state")).toBe("verified");
      expect(await summaryChip.textContent()).toBe("Verified");
      await page.getByRole("status").filter({ hasText: "shop.example is verified" }).waitFor();
      expect((await recordsOnPage(page)).map((r) => r.status)).toEqual([
        "verified",
        "verified",
        "verified",
        "verified",
      ]);
      expect(await (await app.call("GET", `/v1/domains/${shopId}`)).json()).toMatchObject({ status: "verified" });

      // A second domain whose DKIM record was never published: failed, and that record says so.
      await page.getByRole("link", { name: "← All domains" }).click();
      await addDomain(page, "broken.example");
      const broken = await recordsOnPage(page);
      publish(
        dns,
        "broken.example",
        broken.filter((r) => r.record !== "DKIM"),
      );
      await page.getByRole("button", { name: "Verify" }).click();
      await poll(() => summaryChip.getAttribute("data-state")).toBe("failed");
      await page.getByRole("status").filter({ hasText: "broken.example failed verification" }).waitFor();
      expect((await recordsOnPage(page)).map((r) => [r.record, r.status])).toEqual([
        ["DKIM", "failed"],
        ["SPF", "verified"],
        ["SPF", "verified"],
        ["DMARC", "verified"],
      ]);

      // The list: newest first, each with its chip.
      await page.getByRole("link", { name: "← All domains" }).click();
      const rows = page.locator("#domains-view tbody tr");
      await poll(() => rows.count()).toBe(2);
      expect(
        await rows.evaluateAll((trs) =>
          trs.map((tr) => [tr.querySelector("a")!.textContent, tr.querySelector("[data-chip=domain]")!.textContent]),
        ),
      ).toEqual([
        ["broken.example", "Failed"],
        ["shop.example", "Verified"],
      ]);

      // Delete asks first; Cancel keeps it, Delete removes it.
      await page.getByRole("link", { name: "broken.example" }).click();
      await page.getByRole("heading", { level: 1, name: "broken.example" }).waitFor();
      const brokenId = (await rows.first().getAttribute("data-id"))!;
      await page.getByRole("button", { name: "Delete" }).click();
      await page.getByRole("dialog", { name: "Delete this domain?" }).getByRole("button", { name: "Cancel" }).click();
      expect((await app.call("GET", `/v1/domains/${brokenId}`)).status).toBe(200);
      await page.getByRole("button", { name: "Delete" }).click();
      await page.getByRole("dialog", { name: "Delete this domain?" }).getByRole("button", { name: "Delete" }).click();
      await page.getByRole("status").filter({ hasText: "Deleted the domain broken.example" }).waitFor();
      await poll(() => rows.count()).toBe(1);
      expect((await app.call("GET", `/v1/domains/${brokenId}`)).status).toBe(404);
      expect(page.problems.filter((p) => !/\b422\b/.test(p))).toEqual([]);
      await page.close();
    });

    it("shows a paused domain's rates, and Resume resumes it", { timeout: 60_000 }, async () => {
      const created = (await (await app.call("POST", "/v1/domains", { name: "acme.example" })).json()) as {
        id: string;
      };
      // Two emails go through the worker to the sink; the first comes back as a Permanent bounce.
      const ids: string[] = [];
      for (const to of ["r0@example.org", "r1@example.org"]) {
        const { id } = await app.fp.emails.send({
          from: "Acme <hello@acme.example>",
          to,
          subject: "Hi",
          text: "Hello",
        });
        expect(await app.fp.emails.worker!.runOnce()).toBe(1);
        ids.push(id);
      }
      await app.fp.emails.applyReports([
        {
          type: "bounced",
          source: "dsn",
          emailId: ids[0]!,
          recipient: "r0@example.org",
          action: "failed",
          status: "5.1.1",
          bounce: { type: "Permanent", subType: "General", reason: "userunknown", message: "550 5.1.1 no such user" },
        },
      ]);
      expect(await (await app.call("GET", `/v1/domains/${created.id}`)).json()).toMatchObject({
        paused: true,
        reputation: { sends: 2, bounce_rate: 0.5, complaint_rate: 0 },
      });

      const page = await browser.newPage(1280);
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.evaluate(`location.hash = "#/domains"`);
      const row = page.locator(`#domains-view tbody tr[data-id="${created.id}"]`);
      await row.waitFor();
      expect(await row.locator("[data-chip=paused]").textContent()).toBe("Paused");
      const bounce = row.locator('[data-label="Bounce rate"] .rate');
      expect(await bounce.textContent()).toBe("50% · above the 5% limit");
      expect(await bounce.getAttribute("data-over")).toBe("true");
      expect(await row.locator('[data-label="Complaint rate"] .rate').textContent()).toBe("0% · limit 5%");

      await row.getByRole("link", { name: "acme.example" }).click();
      await page.getByRole("heading", { level: 1, name: "acme.example" }).waitFor();
      const notice = page.locator("#domain-view .domain-paused");
      await notice.getByText("Paused by the reputation guard").waitFor();
      const rates = page.locator("#domain-view .domain-reputation");
      expect(await rates.textContent()).toContain("Over the last 2 of at most 10 sends");
      expect(await rates.locator(".rate").first().textContent()).toBe("50% · above the 5% limit");

      await notice.getByRole("button", { name: "Resume" }).click();
      await page.getByRole("status").filter({ hasText: "Resumed acme.example" }).waitFor();
      expect(await notice.isVisible()).toBe(false);
      expect(await page.locator("#domain-view .domain-summary [data-chip=paused]").textContent()).toBe("Sending");
      expect(await (await app.call("GET", `/v1/domains/${created.id}`)).json()).toMatchObject({
        paused: false,
        paused_at: null,
      });
      expect(page.problems).toEqual([]);
      await page.close();
    });

    it("copies a record's value to the clipboard, also without the async clipboard", async () => {
      await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.url });
      const created = (await (await app.call("POST", "/v1/domains", { name: "copy.example" })).json()) as {
        id: string;
        records: { value: string; name: string }[];
      };
      const page = await browser.newPage(1280);
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.evaluate(`location.hash = "#/domains/${created.id}"`);
      await page.getByRole("heading", { level: 1, name: "copy.example" }).waitFor();
      const readClipboard = () => page.evaluate("navigator.clipboard.readText()") as Promise<string>;

      await page.getByRole("button", { name: "Copy the DKIM TXT record's value" }).click();
      await page.getByRole("status").filter({ hasText: "Copied the DKIM TXT record's value." }).waitFor();
      expect(await readClipboard()).toBe(created.records[0]!.value);
      await page.getByRole("button", { name: "Copy the DMARC TXT record's name" }).click();
      await poll(readClipboard).toBe("_dmarc");

      // navigator.clipboard refuses (no secure context, no permission): the selection is copied.
      await page.evaluate(
        'navigator.clipboard.writeText = () => Promise.reject(new DOMException("refused", "NotAllowedError"))',
      );
      await page.getByRole("button", { name: "Copy the SPF TXT record's value" }).click();
      await poll(readClipboard).toBe(created.records[2]!.value);
      // And when the browser refuses that too, the value stays selected for Ctrl+C.
      await page.evaluate("document.execCommand = () => false");
      await page.getByRole("button", { name: "Copy the SPF MX record's value" }).click();
      await page.getByRole("status").filter({ hasText: "is selected, press Ctrl+C" }).waitFor();
      expect(await page.evaluate("String(getSelection())")).toBe(created.records[1]!.value);
      expect(page.problems).toEqual([]);
      await page.close();
    });

    it("fits 375 and 1280 px: long TXT values wrap inside their cell", async () => {
      const created = (await (await app.call("POST", "/v1/domains", { name: "narrow.example" })).json()) as {
        id: string;
      };
      for (const width of [375, 1280]) {
        const page = await browser.newPage(width);
        await connect(page, `${app.url}/dashboard/`, app.key);
        await page.evaluate(`location.hash = "#/domains/${created.id}"`);
        await page.getByRole("heading", { level: 1, name: "narrow.example" }).waitFor();
        await page.locator("#domain-view .records-table").waitFor();
        const pageOverflow = () =>
          page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth");
        expect(await pageOverflow()).toBe(0);
        const boxes = (selector: string) =>
          page
            .locator(`#domain-view ${selector}`)
            .evaluateAll((els) =>
              els.map((el) => ({ overflow: el.scrollWidth - el.clientWidth, right: el.getBoundingClientRect().right })),
            );
        for (const box of [...(await boxes(".record-value")), ...(await boxes(".record-name"))]) {
          expect(box.overflow).toBe(0);
          expect(box.right).toBeLessThanOrEqual(width);
        }
        for (const button of await boxes(".copy-button")) expect(button.right).toBeLessThanOrEqual(width);
        if (backend === "sqlite")
          await page.screenshot({ path: artifactPath(`dashboard-domain-${width}.png`), fullPage: true });
        await page.evaluate(`location.hash = "#/domains"`);
        await page.locator("#domains-view tbody tr").first().waitFor();
        expect(await pageOverflow()).toBe(0);
        if (backend === "sqlite")
          await page.screenshot({ path: artifactPath(`dashboard-domains-${width}.png`), fullPage: true });
        expect(page.problems).toEqual([]);
        await page.close();
      }
    });

    it("says so for an id that names no domain, and shows none of a domain's parts", async () => {
      const page = await browser.newPage(1280);
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.evaluate('location.hash = "#/domains/0190aaaa-0000-7000-8000-000000000000"');
      await page.getByRole("heading", { level: 1, name: "Domain not found" }).waitFor();
      await page.getByText("No sending domain has the id 0190aaaa-0000-7000-8000-000000000000.").waitFor();
      expect(await page.getByRole("button", { name: "Verify" }).isVisible()).toBe(false);
      expect(await page.locator("#domain-view").getByText("Loading domain…").isVisible()).toBe(false);
      expect(page.problems.filter((p) => !p.includes("404"))).toEqual([]);
      await page.close();
    });

    it("tells a key without full_access that domains need it", async () => {
      const created = (await (await app.call("POST", "/v1/domains", { name: "scoped.example" })).json()) as {
        id: string;
      };
      const { key } = await app.fp.keys.create({ name: "mail", scopes: ["flags:read", "emails:read", "emails:send"] });
      const page = await browser.newPage(1280);
      await connect(page, `${app.url}/dashboard/`, key);
      await page.getByRole("link", { name: "Domains", exact: true }).click();
      await page.getByRole("note").filter({ hasText: "every domain route needs the full_access scope" }).waitFor();
      expect(await page.getByRole("button", { name: "Add domain" }).isVisible()).toBe(false);
      expect(await page.locator("#domains-view table").isVisible()).toBe(false);
      await page.evaluate(`location.hash = "#/domains/${created.id}"`);
      await page.locator("#domain-view").getByRole("note").filter({ hasText: "full_access" }).waitFor();
      expect(await page.getByRole("button", { name: "Verify" }).isVisible()).toBe(false);
      expect(await page.locator("#domain-view .records-table").count()).toBe(0);
      expect(page.problems).toEqual([]);
      await page.close();
    });
  });
}
