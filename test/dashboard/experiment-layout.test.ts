import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrackEventInput } from "../../src/events/index.js";
import { startApp, type TestApp } from "../support/servers.js";
import { artifactPath, type Browser, connect, launchBrowser } from "./browser.js";

/**
 * Issue 25 item 8, the experiment results tables in Chromium: at 1280 and 1440 px nothing in them
 * is clipped or scrolled ("Chance to beat control" whole, every number whole); at 375 px each
 * variant is a card whose numbers are labelled with their column, as docs/dashboard.md says.
 */

interface Measured {
  scrolls: boolean;
  clipped: string[];
  display: string;
  labels: string[];
  widest: number;
}

describe("dashboard: experiment results layout", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
    await app.fp.flags.create({
      key: "checkout",
      enabled: true,
      variants: [
        { key: "control", weight: 50 },
        { key: "green", weight: 30 },
        { key: "blue", weight: 20 },
      ],
    });
    const events: TrackEventInput[] = [];
    for (let i = 0; i < 600; i++) {
      const userId = `u${i}`;
      const variant = app.fp.getVariant("checkout", { userId })!;
      const timestamp = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
      events.push({ event: "$exposure", userId, timestamp, properties: { experimentId: "checkout", variant } });
      if (i % (variant === "green" ? 4 : 6) === 0)
        events.push({ event: "purchase", userId, timestamp, properties: { revenue: 3 + ((i * 7) % 40) } });
    }
    await app.fp.events.trackBatch(events);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  for (const width of [1280, 1440, 375]) {
    it(`shows every number whole at ${width} px`, async () => {
      const page = await browser.newPage(width);
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.goto(`${app.url}/dashboard/#/flags/checkout/experiment?metric=purchase`);
      await page.locator('#conversion-table td[data-field="chance"]').first().waitFor();
      for (const id of ["#conversion-table", "#revenue-table"]) {
        const measured = (await page.evaluate(`(() => {
          const table = document.querySelector("${id}");
          const scroller = table.parentElement;
          const cells = [...table.querySelectorAll("th, td")].filter((c) => c.getBoundingClientRect().width > 2);
          const chance = table.querySelector('td[data-field="chance"]');
          return {
            scrolls: scroller.scrollWidth > scroller.clientWidth,
            clipped: cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent),
            display: getComputedStyle(table.querySelector("tbody tr")).display,
            labels: [...table.querySelectorAll("tbody tr:nth-child(2) td")].map((c) => getComputedStyle(c, "::before").content),
            widest: Math.max(...[...table.querySelectorAll("tr")].map((r) => r.getBoundingClientRect().right)),
          };
        })()`)) as Measured;
        expect(measured.scrolls, `${id} scrolls sideways`).toBe(false);
        expect(measured.clipped, `${id} cells cut off`).toEqual([]);
        expect(measured.widest).toBeLessThanOrEqual(width);
        if (width === 375) {
          expect(measured.display).toBe("block");
          expect(measured.labels).toContain('"Chance to beat control: "');
          expect(measured.labels).toContain('"Difference: "');
        } else expect(measured.display).toBe("table-row");
      }
      await page.screenshot({ path: artifactPath(`dashboard-experiment-results-${width}.png`), fullPage: true });
      expect(page.problems).toEqual([]);
      await page.close();
    });
  }
});
