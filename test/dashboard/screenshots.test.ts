import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";
import { artifactPath, type Browser, connect, launchBrowser } from "./browser.js";

/**
 * The list and the editor at a phone's width and a laptop's, saved to test-artifacts/ (not
 * committed) for a person to look at. What a test can check by itself, it checks: nothing is
 * wider than the window.
 */
describe("dashboard: screenshots at 375 px and 1280 px", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
    const flags = [
      {
        key: "new-checkout",
        description: "The new checkout flow: one page instead of three",
        enabled: true,
        rules: [
          { type: "users", userIds: ["alice", "bob"] },
          { type: "attribute", attribute: "plan", operator: "in", value: ["pro", "enterprise"] },
          { type: "percentage", percentage: 30 },
        ],
      },
      { key: "dark-mode", description: "Dark theme in the web app", enabled: true, rules: [] },
      {
        key: "search.v2-ranking",
        description: "Ranking model trained on click data, behind a 5% rollout",
        enabled: false,
        rules: [{ type: "percentage", percentage: 5 }],
      },
      { key: "billing_invoices_pdf", description: "", enabled: false, rules: [] },
      {
        key: "mobile-onboarding-with-a-rather-long-flag-key-to-see-wrapping",
        description: "Long keys must wrap rather than push the layout sideways",
        enabled: true,
        rules: [],
      },
    ];
    for (const flag of flags) await app.fp.flags.create(flag as Parameters<TestApp["fp"]["flags"]["create"]>[0]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  for (const width of [375, 1280]) {
    it(`list and editor at ${width} px`, async () => {
      const page = await browser.newPage(width);
      if (width === 1280) await page.setViewportSize({ width, height: 1180 });
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.getByRole("link", { name: "new-checkout" }).waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
      await page.screenshot({ path: artifactPath(`dashboard-list-${width}.png`), fullPage: true });

      await page.getByRole("link", { name: "new-checkout" }).click();
      await page.getByRole("heading", { level: 1, name: "new-checkout" }).waitFor();
      await page.getByLabel("User ID", { exact: true }).fill("zoe");
      await page.getByLabel("Attributes (JSON object)").fill('{"plan": "pro"}');
      await page.getByRole("button", { name: "Evaluate" }).click();
      await page.locator("#try-for", { hasText: "zoe" }).waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
      await page.screenshot({ path: artifactPath(`dashboard-editor-${width}.png`), fullPage: true });
      // The picture for docs/dashboard.png (copied by hand after looking at it): one window's worth.
      if (width === 1280) await page.screenshot({ path: artifactPath("readme-dashboard.png") });

      // The same editor with the server's 422 messages in place.
      await page.getByLabel("Percentage of users (rule 3)").fill("250");
      await page.getByLabel("Values (rule 2) (one per line)").fill("");
      await page.getByRole("button", { name: "Save changes" }).click();
      await page.locator('[data-error-slot="rules.2.percentage"]').waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
      await page.screenshot({ path: artifactPath(`dashboard-editor-errors-${width}.png`), fullPage: true });
      await page.close();
    });
  }
});
