import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";
import { artifactPath, type Browser, connect, launchBrowser } from "./browser.js";

// Issue 27: the flag form edits variants (keys, weights summing to 100, JSON values of one type)
// and the variant a rule serves, at desktop and phone widths, against the real /v1 API.

describe("dashboard: variants and values", { timeout: 90_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  for (const width of [1280, 375]) {
    it(`creates a flag with valued variants and a rule serving one at ${width} px, refusing bad JSON and mixed types`, async () => {
      const key = `upload-limit-${width}`;
      const page = await browser.newPage(width);
      const writes: string[] = [];
      page.on("request", (r) => r.method() !== "GET" && writes.push(`${r.method()} ${new URL(r.url()).pathname}`));
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.getByRole("link", { name: "New flag" }).click();
      await page.getByRole("heading", { level: 1, name: "New flag" }).waitFor();
      await page.getByLabel("Key", { exact: true }).fill(key);

      await page.getByRole("button", { name: "+ Variant" }).click();
      await page.getByRole("button", { name: "+ Variant" }).click();
      await page.getByLabel("Key (variant 1)").fill("small");
      await page.getByLabel("Key (variant 2)").fill("large");
      await page.getByLabel("Weight (variant 1)").fill("60");
      await page.getByLabel("Weight (variant 2)").fill("30");
      const sum = page.locator("#variant-sum");
      expect(await sum.textContent()).toBe("Weights sum to 90 of 100: they must sum to exactly 100.");

      // Invalid JSON shows as it is typed, next to the field.
      const first = page.getByLabel("Value (JSON) (variant 1)");
      const second = page.getByLabel("Value (JSON) (variant 2)");
      await first.fill("{maxUploadMb: 25}");
      const firstError = page.locator('[data-error-slot="variants.0.value"]');
      await firstError.filter({ hasText: "Not valid JSON" }).waitFor();
      expect(await first.getAttribute("aria-invalid")).toBe("true");
      await first.fill('{"maxUploadMb": 25}');
      expect(await firstError.isVisible()).toBe(false);
      // Mixed types too.
      await second.fill("250");
      const secondError = page.locator('[data-error-slot="variants.1.value"]');
      await secondError.filter({ hasText: "This is a number, but the first value is an object" }).waitFor();

      // Save refuses, nothing is sent, and the weights' problem shows as well.
      await page.getByRole("button", { name: "Create flag" }).click();
      await page.locator("#form-error", { hasText: "nothing was sent" }).waitFor();
      await page.locator('[data-error-slot="variants"]', { hasText: "Weights must sum to 100, not 90" }).waitFor();
      expect(writes).toEqual([]);

      await second.fill('{"maxUploadMb": 250}');
      await page.getByLabel("Weight (variant 2)").fill("40");
      expect(await sum.textContent()).toBe("Weights sum to 100 of 100.");
      expect(await page.locator('[data-error-slot="variants"]').isVisible()).toBe(false);
      await page.getByRole("button", { name: "+ Attribute rule" }).click();
      await page.getByLabel("Attribute (rule 1)").fill("plan");
      await page.getByLabel("Value (rule 1)").fill("pro");
      await page.getByLabel("Rule 1 Serves").selectOption("large");
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
      await page.screenshot({ path: artifactPath(`dashboard-variants-${width}.png`), fullPage: true });
      await page.getByRole("button", { name: "Create flag" }).click();
      await page.getByRole("heading", { level: 1, name: key }).waitFor();

      const flag = await app.fp.flags.get(key);
      expect(flag.variants).toEqual([
        { key: "small", weight: 60, value: { maxUploadMb: 25 } },
        { key: "large", weight: 40, value: { maxUploadMb: 250 } },
      ]);
      expect(flag.rules).toEqual([
        { type: "attribute", attribute: "plan", operator: "equals", value: "pro", variant: "large" },
      ]);
      await app.fp.flags.update(key, { enabled: true });
      const pro = await app.fp.flags.evaluate(key, { userId: "u1", attributes: { plan: "pro" } });
      expect(pro).toMatchObject({ variant: "large", value: { maxUploadMb: 250 } });

      // The saved flag opens with its variants and the rule's choice as saved.
      // The title shows before the flag has loaded: wait for the form to be the saved flag's.
      await expect
        .poll(() => page.getByLabel("Value (JSON) (variant 2)").inputValue(), { timeout: 10_000 })
        .toBe('{\n  "maxUploadMb": 250\n}');
      expect(await page.getByLabel("Rule 1 Serves").inputValue()).toBe("large");
      // Try it shows the served variant and its value, as the evaluate route answers them.
      await page.getByLabel("User ID", { exact: true }).fill("u1");
      await page.getByLabel("Attributes (JSON object)").fill('{"plan": "pro"}');
      await page.getByRole("button", { name: "Evaluate" }).click();
      await page.locator("#try-variant", { hasText: "large" }).waitFor();
      expect(await page.locator("#try-value").textContent()).toBe('{"maxUploadMb":250}');

      // A changed value is saved and reads as its own path in the history.
      await page.getByLabel("Value (JSON) (variant 2)").fill('{"maxUploadMb": 500}');
      await page.getByRole("button", { name: "Save changes" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: `Saved flag ${key}` })
        .waitFor();
      await page.getByRole("tab", { name: "History" }).click();
      const latest = page.locator("#history-list > li:nth-child(1) .change");
      await latest.first().waitFor();
      expect((await latest.allTextContents()).map((text) => text.replace(/\s+/g, " "))).toEqual([
        "Variant 2 value.maxUploadMb: 250 → changed to 500",
      ]);
      await page.close();
    });
  }
});
