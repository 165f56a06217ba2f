import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";
import { type Receiver, startReceiver } from "../webhooks/support/receiver.js";
import { type Browser, connect, launchBrowser } from "./browser.js";

/**
 * Issue 25 item 8, the webhook pages, in Chromium at 1280 and 375 px against a real server and a
 * real receiver on 127.0.0.1 that always answers 500: the failing endpoint says "Failing since"
 * on the list and on its page; a delivery's Details show its payload and its next attempt in the
 * reader's local time (the browser runs in Pacific/Auckland, so a UTC time would differ); the
 * endpoint can be edited, disabled and its secret rotated; the settings panel and the deliveries
 * do not touch.
 */

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 50 });

describe("dashboard: a webhook endpoint's status, settings and deliveries", { timeout: 90_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.answer = () => ({ status: 500, body: "broken" });
    [app, browser] = await Promise.all([
      startApp({ webhooks: { allowPrivateNetworks: true, pollIntervalMs: 50, retrySchedule: "1h", retryJitter: 0 } }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
  });

  for (const width of [1280, 375]) {
    it(`keeps the new endpoint's secret notice off the endpoint cards at ${width} px`, async () => {
      const page = await browser.newPage(width);
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.goto(`${app.url}/dashboard/#/webhooks`);
      await page.getByLabel("Endpoint URL").fill(`${receiver.url}/spaced-${width}`);
      await page.locator("#webhooks-view form").getByLabel("email.sent").check();
      await page.getByRole("button", { name: "Create endpoint" }).click();
      await page.locator("#webhook-secret").waitFor();
      const notice = (await page
        .locator("#webhooks-view > .notice", { has: page.locator("#webhook-secret") })
        .boundingBox())!;
      const cards = (await page.locator("#webhooks-view table").boundingBox())!;
      expect(cards.y - (notice.y + notice.height)).toBeGreaterThanOrEqual(12);
      expect(page.problems).toEqual([]);
      await page.close();
    });
  }

  for (const width of [1280, 375]) {
    it(`shows failing, payload and next attempt locally, and edits, disables and rotates at ${width} px`, async () => {
      const hook = await app.fp.webhooks.create({ endpoint: `${receiver.url}/in-${width}`, events: ["flag.created"] });
      await app.fp.flags.create({ key: `hooked-${width}` });
      await receiver.waitFor(width === 1280 ? 1 : 2);
      await poll(async () => (await app.fp.webhooks.get(hook.id)) as { failing_since?: string }).toHaveProperty(
        "failing_since",
      );
      const failingSince = ((await app.fp.webhooks.get(hook.id)) as { failing_since?: string }).failing_since!;

      const context = browser.context;
      const page = await browser.newPage(width);
      await page.emulateMedia({ reducedMotion: "reduce" });
      // Local time is the browser's: Auckland is 12 or 13 hours from UTC.
      const cdp = await context.newCDPSession(page);
      await cdp.send("Emulation.setTimezoneOverride", { timezoneId: "Pacific/Auckland" });
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.goto(`${app.url}/dashboard/#/webhooks`);
      const row = page.locator(`#webhooks-view tbody tr[data-id="${hook.id}"]`);
      await row.waitFor();
      expect(await row.locator("[data-chip=webhook]").textContent()).toBe("Failing");
      expect(await row.locator(".failing time").getAttribute("datetime")).toBe(failingSince);

      await page.goto(`${app.url}/dashboard/#/webhooks/${hook.id}`);
      const settings = page.getByRole("region", { name: "Endpoint" });
      await settings.waitFor();
      expect(await settings.locator("[data-chip=webhook]").textContent()).toBe("Failing");
      const delivery = page.locator("#webhook-view tbody tr[data-id]");
      await poll(() => delivery.count()).toBe(1);
      await delivery.getByRole("button", { name: "Details" }).click();
      const next = page.locator("#webhook-view .next-attempt time");
      await next.waitFor();
      const iso = (await next.getAttribute("datetime"))!;
      const shown = (await next.textContent())!;
      const auckland = new Intl.DateTimeFormat("en-US", {
        timeZone: "Pacific/Auckland",
        dateStyle: "medium",
        timeStyle: "short",
      }).format(new Date(iso));
      const utc = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", dateStyle: "medium", timeStyle: "short" }).format(
        new Date(iso),
      );
      expect(shown).toBe(auckland);
      expect(shown).not.toBe(utc);
      await page.locator("#webhook-view .payload summary").click();
      const payload = JSON.parse((await page.locator("#webhook-view .payload pre").textContent())!) as {
        type: string;
        data: { key: string };
      };
      expect(payload).toMatchObject({ type: "flag.created", data: { key: `hooked-${width}` } });

      // The settings panel and the deliveries below it do not touch.
      const panelBox = (await settings.boundingBox())!;
      const deliveriesBox = (await page.locator("#webhook-view .deliveries").boundingBox())!;
      expect(deliveriesBox.y - (panelBox.y + panelBox.height)).toBeGreaterThanOrEqual(12);
      // Nothing wider than the screen.
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);

      // Edit: a new URL and events.
      await settings.getByRole("button", { name: "Edit" }).click();
      await settings.getByLabel("URL", { exact: true }).fill(`${receiver.url}/moved-${width}`);
      await settings.getByLabel("flag.updated").check();
      await settings.getByRole("button", { name: "Save" }).click();
      await page.getByRole("status").filter({ hasText: "Saved the endpoint" }).waitFor();
      await poll(async () => (await app.fp.webhooks.get(hook.id)).endpoint).toBe(`${receiver.url}/moved-${width}`);
      expect((await app.fp.webhooks.get(hook.id)).events.sort()).toEqual(["flag.created", "flag.updated"]);
      await page.getByRole("heading", { level: 1, name: `${receiver.url}/moved-${width}` }).waitFor();

      // Disable, then enable again (which clears the failing run).
      await settings.getByRole("button", { name: "Disable" }).click();
      await poll(async () => (await app.fp.webhooks.get(hook.id)).status).toBe("disabled");
      await poll(() => settings.locator("[data-chip=webhook]").textContent()).toBe("Disabled");
      await settings.getByRole("button", { name: "Enable" }).click();
      await poll(async () => (await app.fp.webhooks.get(hook.id)).status).toBe("enabled");
      await poll(() => settings.locator("[data-chip=webhook]").textContent()).toBe("Enabled");

      // Rotate the secret, after confirming.
      const before = (await app.fp.webhooks.get(hook.id)).signing_secret;
      await settings.getByRole("button", { name: "Rotate secret" }).click();
      await page.locator("#confirm-dialog").getByRole("button", { name: "Rotate" }).click();
      await poll(async () => (await app.fp.webhooks.get(hook.id)).signing_secret).not.toBe(before);
      const after = (await app.fp.webhooks.get(hook.id)).signing_secret;
      await page.getByRole("status").filter({ hasText: after }).waitFor();
      await poll(() => settings.locator("details code").textContent()).toBe(after);
      expect(page.problems).toEqual([]);
      await page.close();
    });
  }
});
