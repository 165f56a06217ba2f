import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";
import { type Browser, connect, launchBrowser } from "./browser.js";

/**
 * Issue 25 item 8, the prerequisite key field in Chromium at 1280 and 375 px: a long flag key
 * typed in it is shown whole (the field is as wide as its text needs, up to the card's width),
 * and nothing on the page is wider than the screen.
 */

const LONG_KEY = "checkout-redesign-2026-q3-rollout";

describe("dashboard: the prerequisite key field", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
    await app.fp.flags.create({ key: LONG_KEY, enabled: true });
    await app.fp.flags.create({ key: "child", enabled: true, prerequisites: [{ flagKey: LONG_KEY, enabled: true }] });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  for (const width of [1280, 375]) {
    it(`shows a long prerequisite key whole at ${width} px`, async () => {
      const page = await browser.newPage(width);
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.goto(`${app.url}/dashboard/#/flags/child`);
      const field = page.getByLabel("Flag (prerequisite 1)");
      await field.waitFor();
      expect(await field.inputValue()).toBe(LONG_KEY);
      const fits = (await page.evaluate(`(() => {
        const input = document.querySelector('.prerequisite-flag input');
        return { text: input.scrollWidth, box: input.clientWidth, right: input.getBoundingClientRect().right };
      })()`)) as { text: number; box: number; right: number };
      expect(fits.text, `the key needs ${fits.text} px, the field shows ${fits.box}`).toBeLessThanOrEqual(fits.box);
      expect(fits.right).toBeLessThanOrEqual(width);
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
      expect(page.problems).toEqual([]);
      await page.close();
    });
  }
});
