import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";
import { artifactPath, type Browser, connect, launchBrowser } from "./browser.js";

/**
 * The navigation between Flags, Experiments, Emails, Suppressions and Webhooks, the Experiments
 * index (every flag with variants, from the flag snapshot), and each page at phone and desktop
 * widths: nothing wider than the screen. Screenshots go to test-artifacts/.
 */

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000, interval: 50 });

describe("dashboard: navigation and the pages at 375 and 1280 px", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  let hookId: string;
  let emailId: string;

  beforeAll(async () => {
    // No transport: the emails stay queued, which is all these pages need.
    [app, browser] = await Promise.all([
      startApp({ webhooks: { allowPrivateNetworks: true, autoStart: false } }),
      launchBrowser(),
    ]);
    await app.fp.flags.create({
      key: "checkout-test",
      enabled: true,
      variants: [
        { key: "control", weight: 50 },
        { key: "green", weight: 50 },
      ],
    });
    await app.fp.flags.create({ key: "plain-switch", enabled: true });
    const hook = (await (
      await app.call("POST", "/v1/webhooks", {
        endpoint: "http://127.0.0.1:9/a-rather-long-endpoint-path/that/keeps/going/and/going/flagpost-hooks",
        events: ["email.sent", "email.bounced", "suppression.added", "flag.created", "flag.updated"],
      })
    ).json()) as { id: string };
    hookId = hook.id;
    const sent = (await (
      await app.call("POST", "/v1/emails", {
        from: "A very long sender name for a narrow screen <notifications@a-long-subdomain.example.com>",
        to: ["first.recipient.with.a.long.name@example.org", "second@example.org"],
        subject: "An unusually long subject line that has to wrap on a phone screen without overflowing",
        text: "Hello",
      })
    ).json()) as { id: string };
    emailId = sent.id;
    await app.call("POST", "/v1/suppressions", { email: "someone.with.a.long.address@example.org" });
    await app.call("POST", "/v1/flags", { key: "after-hook" }); // a delivery for the endpoint
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("moves between the sections and marks the current one", async () => {
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, app.key);
    const nav = page.getByRole("navigation", { name: "Sections" });
    const current = () => nav.locator('[aria-current="page"]').textContent();
    expect(await current()).toBe("Flags");
    for (const [link, heading] of [
      ["Experiments", "Experiments"],
      ["Emails", "Emails"],
      ["Suppressions", "Suppressions"],
      ["Webhooks", "Webhooks"],
      ["Flags", "Flags"],
    ] as const) {
      await nav.getByRole("link", { name: link, exact: true }).click();
      await page.getByRole("heading", { level: 1, name: heading, exact: true }).waitFor();
      expect(await current()).toBe(link);
      // The heading takes the focus, as on the flag pages.
      expect(await page.evaluate("document.activeElement?.tagName")).toBe("H1");
    }
    // Forget key hides the navigation with everything else.
    await page.getByRole("button", { name: "Forget key" }).click();
    expect(await nav.isVisible()).toBe(false);
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("lists the flags with variants as experiments, linked to their results", async () => {
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.evaluate('location.hash = "#/experiments"');
    const rows = page.locator("#experiments-view tbody tr");
    await poll(() => rows.count()).toBe(1);
    // A no-break space between a weight and its "%": "(50 %)" never wraps inside.
    expect(await rows.first().textContent()).toContain("control (50\u00a0%), green (50\u00a0%)");
    await rows.first().getByRole("link", { name: "checkout-test" }).click();
    await page.getByRole("heading", { level: 1, name: "Experiment" }).waitFor();
    expect(page.url()).toMatch(/#\/flags\/checkout-test\/experiment$/);
    expect(
      await page.getByRole("navigation", { name: "Sections" }).locator('[aria-current="page"]').textContent(),
    ).toBe("Experiments");
    expect(page.problems).toEqual([]);
    await page.close();
  });

  for (const width of [375, 1280]) {
    it(`fits every page in ${width} px`, async () => {
      const page = await browser.newPage(width);
      await connect(page, `${app.url}/dashboard/`, app.key);
      for (const [name, hash, ready] of [
        ["experiments", "#/experiments", "#experiments-view tbody tr"],
        ["emails", "#/emails", "#emails-view tbody tr"],
        ["email", `#/emails/${emailId}`, "#email-view .timeline-item"],
        ["suppressions", "#/suppressions", "#suppressions-view tbody tr"],
        ["webhooks", "#/webhooks", "#webhooks-view tbody tr"],
        ["webhook", `#/webhooks/${hookId}`, "#webhook-view tbody tr"],
      ] as const) {
        await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
        await page.locator(ready).first().waitFor();
        expect(await page.evaluate("document.documentElement.scrollWidth"), name).toBeLessThanOrEqual(width);
        await page.screenshot({ path: artifactPath(`dashboard-${name}-${width}.png`), fullPage: true });
      }
      expect(page.problems).toEqual([]);
      await page.close();
    });
  }
});
