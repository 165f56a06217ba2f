import type { Locator } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Backend, createTestStorage, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { EXPECTED, overviewScenario, type OverviewScenario } from "../support/overview-scenario.js";
import { artifactPath, type Browser, connect, launchBrowser } from "./browser.js";

/**
 * Issue 29 item 3: the Overview page in headless Chromium at 1280 and 375 px, on SQLite and
 * PostgreSQL, with real data (test/support/overview-scenario.ts: emails sent to a real SMTP
 * server, reports, tracked events, an endpoint whose receiver answers 500). The numbers and every
 * bar of the charts agree with the scenario; each card links to its page; nothing scrolls
 * sideways at 375 px.
 */

const numberOf = async (card: Locator) =>
  Number((await card.locator(".overview-number").textContent())?.replace(/\D/g, ""));
const barCounts = (card: Locator) =>
  card.locator("rect").evaluateAll((bars) => bars.map((b) => Number(b.getAttribute("data-count"))));

for (const backend of ["sqlite", "postgres"] as const satisfies readonly Backend[]) {
  describeIfBackend(backend, `dashboard: overview (${backend})`, () => {
    let scenario: OverviewScenario;
    let database: TestDatabase;
    let browser: Browser;

    beforeAll(async () => {
      const created = await createTestStorage(backend);
      database = created.database;
      [scenario, browser] = await Promise.all([overviewScenario(created.storage), launchBrowser()]);
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await scenario?.close();
      await database?.drop();
    });

    for (const width of [1280, 375]) {
      it(`shows the numbers, the charts and the links at ${width} px`, { timeout: 60_000 }, async () => {
        const { app } = scenario;
        const page = await browser.newPage(width);
        await connect(page, `${app.url}/dashboard/`, app.key);
        const nav = page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Overview" });
        await nav.click();
        await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
        expect(await nav.getAttribute("aria-current")).toBe("page");
        const card = (kind: string) => page.locator(`[data-card="${kind}"]`);
        await card("outbox").waitFor();

        expect(await numberOf(card("outbox"))).toBe(EXPECTED.outbox.due);
        expect(await card("outbox").locator('[data-field="scheduled"]').textContent()).toBe("1 scheduled for later");
        expect(await card("outbox").locator('[data-field="oldest"]').textContent()).toBe("Oldest waiting 25 min");

        const hours = Array.from({ length: 24 }, (_, i) => EXPECTED.hours[i as keyof typeof EXPECTED.hours]);
        for (const kind of ["sent", "bounced", "complained"] as const) {
          expect(await numberOf(card(kind)), kind).toBe(EXPECTED.totals[kind]);
          expect(await barCounts(card(kind)), kind).toEqual(hours.map((h) => h?.[kind] ?? 0));
        }
        expect(await numberOf(card("events"))).toBe(EXPECTED.events);
        const minutes = Array.from({ length: 60 }, (_, i) => EXPECTED.minutes[i as keyof typeof EXPECTED.minutes] ?? 0);
        expect(await barCounts(card("events"))).toEqual(minutes);
        expect(await card("events").locator("svg").getAttribute("aria-label")).toBe(
          "Events per minute over the last hour: 5 in all",
        );

        expect(await numberOf(card("webhooks"))).toBe(1);
        const endpoint = card("webhooks").getByRole("link", { name: scenario.failing.endpoint });
        expect(await endpoint.getAttribute("href")).toBe(`#/webhooks/${scenario.failing.id}`);
        expect(await numberOf(card("storage"))).toBe(0);

        const links = await page
          .locator("[data-link]")
          .evaluateAll((all) => all.map((a) => [a.getAttribute("data-link"), a.getAttribute("href")]));
        expect(Object.fromEntries(links)).toEqual({
          outbox: "#/emails",
          sent: "#/emails",
          bounced: "#/suppressions",
          complained: "#/suppressions",
          events: "#/experiments",
          webhooks: "#/webhooks",
          storage: `${app.url}/ready`,
        });
        const ready = await fetch(`${app.url}/ready`);
        expect(ready.status).toBe(200);

        // Nothing wider than the screen: no sideways scrolling at 375 px.
        expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
        await page.screenshot({ path: artifactPath(`dashboard-overview-${width}-${backend}.png`), fullPage: true });

        await endpoint.click();
        await page.getByRole("heading", { level: 1, name: scenario.failing.endpoint }).waitFor();
        expect(page.problems).toEqual([]);
        await page.close();
      });
    }

    it("shows ids instead of URLs to a key without full_access, and a note to a key without emails:read", async () => {
      const { app } = scenario;
      const reader = await app.fp.keys.create({ scopes: ["flags:read", "emails:read"] });
      const page = await browser.newPage(1280);
      await connect(page, `${app.url}/dashboard/`, reader.key);
      await page.evaluate('location.hash = "#/overview"');
      const link = page.locator('[data-card="webhooks"] li a');
      await link.waitFor();
      expect(await link.textContent()).toBe(scenario.failing.id);

      const flagsOnly = await app.fp.keys.create({ scopes: ["flags:read"] });
      const other = await browser.newPage(1280);
      await connect(other, `${app.url}/dashboard/`, flagsOnly.key);
      await other.evaluate('location.hash = "#/overview"');
      const note = other.locator("#overview-view .scope-note");
      await note.waitFor();
      expect(await note.textContent()).toContain("lacks the emails:read scope");
      expect(await other.locator(".overview-grid").isVisible()).toBe(false);
      expect([...page.problems, ...other.problems]).toEqual([]);
      await Promise.all([page.close(), other.close()]);
    });
  });
}
