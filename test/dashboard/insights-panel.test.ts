import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";
import { type Browser, connect, launchBrowser } from "./browser.js";

/**
 * Issue 25 item 8, the flag editor's Evaluations panel in Chromium at 1280 and 375 px: it says
 * how often this server stores counts (its own `insights.flushIntervalMs`, here 5 s, not a
 * hard-coded minute), and splits the "on" answers by variant as GET /v1/flags/{key}/insights
 * counts them.
 */

describe("dashboard: the Evaluations panel", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  const split = new Map<string, number>();

  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp({ insights: { flushIntervalMs: 5_000 } }), launchBrowser()]);
    await app.fp.flags.create({
      key: "checkout",
      enabled: true,
      variants: [
        { key: "control", weight: 50 },
        { key: "green", weight: 50 },
      ],
    });
    await app.fp.flags.create({ key: "plain", enabled: true });
    for (let i = 0; i < 200; i++) {
      const variant = app.fp.getVariant("checkout", { userId: `u${i}` });
      if (variant !== undefined) split.set(variant, (split.get(variant) ?? 0) + 1);
    }
    for (let i = 0; i < 3; i++) app.fp.isEnabled("plain", { userId: `u${i}` });
    await app.fp.flagInsights.flush();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  for (const width of [1280, 375]) {
    it(`shows the server's storing interval and the per-variant split at ${width} px`, async () => {
      expect([...split.values()].reduce((a, b) => a + b, 0)).toBe(200);
      const page = await browser.newPage(width);
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.goto(`${app.url}/dashboard/#/flags/checkout`);
      const panel = page.locator("#insights-panel");
      await panel.locator("#insights-summary", { hasText: "200 evaluations" }).waitFor();
      expect(await panel.locator("#insights-flush").textContent()).toMatch(/^Counts are stored every 5 seconds /);
      const items = panel.locator("#insights-variants li");
      const shown = Object.fromEntries(
        await items.evaluateAll((els) => els.map((el) => [el.getAttribute("data-variant"), el.textContent])),
      );
      const expected = Object.fromEntries(
        [...split].map(([variant, count]) => [variant, `${variant}: ${count} (${Math.round((count / 200) * 100)}%)`]),
      );
      expect(shown).toEqual(expected);
      const box = (await panel.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);

      // A flag without variants has no split.
      await page.goto(`${app.url}/dashboard/#/flags/plain`);
      await panel.locator("#insights-summary", { hasText: "3 evaluations" }).waitFor();
      expect(await panel.locator("#insights-variants").isVisible()).toBe(false);
      expect(page.problems).toEqual([]);
      await page.close();
    });
  }
});
