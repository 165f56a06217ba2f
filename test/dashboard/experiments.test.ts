import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExperimentResults } from "../../src/experiments/index.js";
import type { TrackEventInput } from "../../src/events/index.js";
import { startApp, type TestApp } from "../support/servers.js";
import { artifactPath, type Browser, connect, launchBrowser } from "./browser.js";

// The Experiments view in a real browser: every number it shows is the API's, written as the page
// writes it; the chart's intervals are the API's differenceCI95 around the control; SRM warns.

const percent = (x: number) => `${(x * 100).toFixed(2)}%`;
const signed = (n: number, digits: number) => `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(digits)}`;
const points = (x: number) => `${signed(x * 100, 2)} pp`;
const pValue = (p: number) => (p < 1e-15 ? "< 1e-15" : p < 0.0001 ? p.toExponential(2) : p.toFixed(4));
const pEquals = (p: number) => (p < 1e-15 ? `p ${pValue(p)}` : `p = ${pValue(p)}`);

async function seed(app: TestApp, key: string, weights: Record<string, number>, assign: (i: number) => string) {
  await app.fp.flags.create({
    key,
    enabled: true,
    variants: Object.entries(weights).map(([variant, weight]) => ({ key: variant, weight })),
  });
  const events: TrackEventInput[] = [];
  for (let i = 0; i < 900; i++) {
    const userId = `${key}-u${i}`;
    const variant = assign(i) || app.fp.getVariant(key, { userId })!;
    const at = Date.UTC(2026, 0, 1) + i * 1000;
    events.push({
      event: "$exposure",
      userId,
      timestamp: new Date(at).toISOString(),
      properties: { experimentId: key, variant },
    });
    if (i % (variant === "green" ? 4 : 6) === 0)
      events.push({
        event: "purchase",
        userId,
        timestamp: new Date(at + 500).toISOString(),
        properties: { revenue: 3 + ((i * 7) % 40), currency: "EUR" },
      });
  }
  for (let i = 0; i < events.length; i += 1000) await app.fp.events.trackBatch(events.slice(i, i + 1000));
}

async function apiResults(app: TestApp, key: string, query: string): Promise<ExperimentResults> {
  const reply = await app.call("GET", `/v1/experiments/${key}/results?${query}`);
  expect(reply.status).toBe(200);
  return ((await reply.json()) as { data: ExperimentResults }).data;
}

/** The text and exact value of one cell of a results table. */
async function cell(page: Page, table: string, variant: string, field: string) {
  const td = page.locator(`${table} tr[data-variant="${variant}"] td[data-field="${field}"]`);
  return { text: await td.textContent(), value: JSON.parse((await td.getAttribute("data-value"))!) as unknown };
}

/** Every number of the view against the API's answer. */
async function expectShown(page: Page, results: ExperimentResults): Promise<void> {
  await page.locator(`#conversion-table tr[data-variant]`).first().waitFor();
  const rows = page.locator("#conversion-table tbody tr");
  expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-variant")))).toEqual(
    results.variants.map((v) => v.key),
  );
  const control = results.variants.find((v) => v.key === results.control)!;
  for (const v of results.variants) {
    expect(await cell(page, "#conversion-table", v.key, "users")).toEqual({ text: String(v.users), value: v.users });
    expect(await cell(page, "#conversion-table", v.key, "conversions")).toEqual({
      text: String(v.conversions),
      value: v.conversions,
    });
    expect(await cell(page, "#conversion-table", v.key, "rate")).toEqual({
      text: percent(v.conversionRate!),
      value: v.conversionRate,
    });
    expect(await cell(page, "#revenue-table", v.key, "perUser")).toEqual({
      text: v.revenuePerUser!.toFixed(2),
      value: v.revenuePerUser,
    });
    const row = page.locator(`#conversion-chart g[data-variant="${v.key}"]`);
    expect(Number(await row.locator("circle").getAttribute("data-value"))).toBe(v.conversionRate);
    if (v.vsControl === null) {
      expect(v.key).toBe(results.control);
      expect(await row.locator("line[data-low]").count()).toBe(0);
      continue;
    }
    const c = v.vsControl.conversionRate!;
    expect(await cell(page, "#conversion-table", v.key, "difference")).toEqual({
      text: points(c.difference),
      value: c.difference,
    });
    expect(await cell(page, "#conversion-table", v.key, "interval")).toEqual({
      text: `${points(c.differenceCI95![0])} to ${points(c.differenceCI95![1])}`,
      value: c.differenceCI95,
    });
    expect(await cell(page, "#conversion-table", v.key, "pValue")).toEqual({
      text: pValue(c.pValue!),
      value: c.pValue,
    });
    expect(await cell(page, "#conversion-table", v.key, "chance")).toEqual({
      text: percent(c.chanceToBeatControl!),
      value: c.chanceToBeatControl,
    });
    const r = v.vsControl.revenuePerUser!;
    expect(await cell(page, "#revenue-table", v.key, "chance")).toEqual({
      text: percent(r.chanceToBeatControl!),
      value: r.chanceToBeatControl,
    });
    expect(await cell(page, "#revenue-table", v.key, "difference")).toEqual({
      text: signed(r.difference, 2),
      value: r.difference,
    });
    // The bar spans the control's rate plus the difference's interval, and the dot sits inside it.
    const bar = row.locator("line[data-low]");
    expect(Number(await bar.getAttribute("data-low"))).toBe(control.conversionRate! + c.differenceCI95![0]);
    expect(Number(await bar.getAttribute("data-high"))).toBe(control.conversionRate! + c.differenceCI95![1]);
    const [x1, x2, cx] = [
      Number(await bar.getAttribute("x1")),
      Number(await bar.getAttribute("x2")),
      Number(await row.locator("circle").getAttribute("cx")),
    ];
    expect(x1).toBeLessThan(cx);
    expect(cx).toBeLessThan(x2);
  }
}

describe("dashboard: experiments", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
    await seed(app, "checkout", { control: 50, green: 30, blue: 20 }, () => "");
    // Weighted 50/50, but four users in five were logged in "a": a broken split.
    await seed(app, "skewed", { a: 50, b: 50 }, (i) => (i % 5 === 0 ? "b" : "a"));
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("shows each variant's numbers as the API computes them, with interval bars, for any control", async () => {
    const page = await browser.newPage();
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.getByRole("link", { name: "checkout" }).click();
    const panel = page.getByRole("region", { name: "Experiment" });
    await panel.getByText("control 50, green 30, blue 20").waitFor();
    await panel.getByRole("link", { name: "Results" }).click();
    await page.getByRole("heading", { level: 1, name: "Experiment: checkout" }).waitFor();

    await page.getByLabel("Metric").fill("purchase");
    await page.getByRole("button", { name: "Show results" }).click();
    const results = await apiResults(app, "checkout", "metric=purchase");
    expect(results.control).toBe("control");
    await expectShown(page, results);
    expect(await page.locator("#experiment-srm").isVisible()).toBe(false);
    await page.getByText(`Sample ratio check: ${pEquals(results.srm.pValue!)}, no mismatch.`).waitFor();
    expect(await page.getByRole("img", { name: /Conversion rate per variant/ }).count()).toBe(1);

    // Another control: the address keeps the choice, and a reload shows the same.
    await page.getByLabel("Control").selectOption("green");
    await page.getByRole("button", { name: "Show results" }).click();
    await page.locator('#conversion-table tr[data-variant="green"] .badge').waitFor();
    expect(new URL(page.url()).hash).toBe("#/flags/checkout/experiment?metric=purchase&control=green");
    const againstGreen = await apiResults(app, "checkout", "metric=purchase&control=green");
    await expectShown(page, againstGreen);
    await page.reload();
    await page.locator('#conversion-table tr[data-variant="green"] .badge').waitFor();
    await expectShown(page, againstGreen);
    expect(await page.getByLabel("Control").inputValue()).toBe("green");
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("warns of a sample ratio mismatch, and asks for a metric", async () => {
    const page = await browser.newPage();
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.evaluate('location.hash = "#/flags/skewed/experiment"');
    await page.getByRole("heading", { level: 1, name: "Experiment: skewed" }).waitFor();
    await page.getByRole("button", { name: "Show results" }).click();
    await page
      .locator("#experiment-metric-error", { hasText: "Enter the event that counts as a conversion" })
      .waitFor();

    await page.getByLabel("Metric").fill("purchase");
    await page.getByRole("button", { name: "Show results" }).click();
    const results = await apiResults(app, "skewed", "metric=purchase");
    expect(results.srm.detected).toBe(true);
    const warning = page.locator("#experiment-srm");
    await warning.waitFor();
    expect(await warning.getAttribute("role")).toBe("alert");
    expect(await warning.textContent()).toContain(
      `Sample ratio mismatch: users reached the variants in other proportions than their weights (chi-square ${results.srm.chiSquare.toFixed(2)}, ${pEquals(results.srm.pValue!)}, below 0.001). Do not trust these results`,
    );
    await expectShown(page, results);
    await page.close();
  });

  for (const width of [375, 1280]) {
    it(`fits ${width} px (screenshot in test-artifacts/)`, async () => {
      const page = await browser.newPage(width);
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.evaluate('location.hash = "#/flags/skewed/experiment?metric=purchase"');
      await page.locator("#experiment-srm").waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
      await page.screenshot({ path: artifactPath(`dashboard-experiment-${width}.png`), fullPage: true });
      await page.close();
    });
  }

  // Issue 25, item 8: on a desktop the results tables fit their panels; none of their columns
  // ("Chance to beat control" above all) hides behind a horizontal scroll.
  for (const width of [1280, 1440]) {
    it(`shows every column of the results tables without scrolling at ${width} px`, async () => {
      const page = await browser.newPage(width);
      await connect(page, `${app.url}/dashboard/`, app.key);
      await page.evaluate('location.hash = "#/flags/checkout/experiment?metric=purchase"');
      await page.locator("#conversion-table tbody tr").first().waitFor();
      const overflow = (await page.evaluate(
        '[...document.querySelectorAll(".table-scroll")].map((box) => box.scrollWidth - box.clientWidth)',
      )) as number[];
      expect(overflow).toEqual([0, 0]);
      await page.close();
    });
  }

  it("says so when the key may not read events", async () => {
    const { key } = await app.fp.keys.create({ name: "flags only", scopes: ["flags:read"] });
    const page = await browser.newPage();
    await connect(page, `${app.url}/dashboard/`, key);
    await page.evaluate('location.hash = "#/flags/checkout/experiment?metric=purchase"');
    await page
      .locator("#experiment-error", {
        hasText: 'This key cannot read experiment results: This API key lacks the "events:read" scope',
      })
      .waitFor();
    expect(await page.locator("#experiment-results").isVisible()).toBe(false);
    await page.close();
  });
});
