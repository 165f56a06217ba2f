import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, connect, launchBrowser } from "./browser.js";
import { type GovernanceApp, itemTexts, poll, read, startGovernanceApp } from "./governance-app.js";

// Issue 14 item 6 in a real browser against the real API on SQLite: a flag's History tab and
// its prerequisites in the editor.

describe("dashboard: flag history and prerequisites", { timeout: 60_000 }, () => {
  let app: GovernanceApp;
  let browser: Browser;
  let dashboard: string;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startGovernanceApp(), launchBrowser()]);
    dashboard = `${app.url}/dashboard/`;
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("shows each change in the History tab: what changed, before → after, who and when", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "New flag" }).click();
    await page.getByLabel("Key", { exact: true }).fill("checkout");
    await page.getByLabel("Description").fill("First");
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByRole("heading", { level: 1, name: "checkout" }).waitFor();
    await page.getByRole("switch", { name: "Enabled" }).check();
    await page.getByRole("status").filter({ hasText: "checkout is now on" }).waitFor();
    // Markup in data stays text.
    await page.getByLabel("Description").fill('<img src=x onerror="window.pwned=1">');
    await page.getByRole("button", { name: "+ Percentage rule" }).click();
    await page.getByLabel("Percentage of users (rule 1)").fill("25");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").filter({ hasText: "Saved flag checkout" }).waitFor();

    await page.getByRole("tab", { name: "History" }).click();
    expect(await page.getByRole("tab", { name: "History" }).getAttribute("aria-selected")).toBe("true");
    expect(await page.getByLabel("Description").isVisible()).toBe(false);
    expect(page.url()).toMatch(/#\/flags\/checkout\/history$/);
    const entries = page.locator("#history-list > li");
    await poll(() => entries.count()).toBe(3);
    const heads = await itemTexts(page, "#history-list > li > .history-head");
    expect(heads[0]).toMatch(/^Updated by API key “test” · \S/);
    expect(heads[1]).toMatch(/^Updated by API key “test”/);
    expect(heads[2]).toMatch(/^Created by API key “test”/);
    expect(await itemTexts(page, "#history-list > li:nth-child(1) .change")).toEqual([
      'Description: “First” → changed to “<img src=x onerror="window.pwned=1">”',
      "Rule 1 added: 25% of users",
    ]);
    expect(await itemTexts(page, "#history-list > li:nth-child(2) .change")).toEqual(["Enabled: off → changed to on"]);
    expect(await itemTexts(page, "#history-list > li:nth-child(3) .change")).toEqual([
      "Description: “First”",
      "Enabled: off",
    ]);
    expect(await page.locator("#history-list > li:nth-child(1) del").textContent()).toBe("“First”");
    expect(await page.locator("#history-list img").count()).toBe(0);
    expect(await page.evaluate("window.pwned")).toBeUndefined();
    // The time is the entry's.
    const stored = await read<{ at: string }[]>(app, "/v1/flags/checkout/history");
    expect(await page.locator("#history-list > li:nth-child(1) time").getAttribute("datetime")).toBe(stored[0]!.at);

    // A change made elsewhere, one field of one rule: the tab shows it when opened again.
    expect(
      (await app.call("PATCH", "/v1/flags/checkout", { rules: [{ type: "percentage", percentage: 50 }] })).status,
    ).toBe(200);
    await page.getByRole("tab", { name: "Settings" }).click();
    await page.getByRole("tab", { name: "History" }).click();
    await poll(() => entries.count()).toBe(4);
    expect(await itemTexts(page, "#history-list > li:nth-child(1) .change")).toEqual([
      "Rule 1 percentage: 25% → changed to 50%",
    ]);

    // A rule that changed its type reads as one rule replaced, not as a line per field.
    expect(
      (await app.call("PATCH", "/v1/flags/checkout", { rules: [{ type: "users", userIds: ["alice"] }] })).status,
    ).toBe(200);
    await page.getByRole("tab", { name: "Settings" }).click();
    await page.getByRole("tab", { name: "History" }).click();
    await poll(() => entries.count()).toBe(5);
    expect(await itemTexts(page, "#history-list > li:nth-child(1) .change")).toEqual([
      "Rule 1: 50% of users → changed to users [“alice”]",
    ]);

    // A reload opens the same tab; the arrow keys move between tabs.
    await page.reload();
    await poll(() => entries.count()).toBe(5);
    expect(await page.getByLabel("Description").isVisible()).toBe(false);
    await page.getByRole("tab", { name: "History" }).focus();
    await page.keyboard.press("ArrowLeft");
    expect(await page.getByRole("tab", { name: "Settings" }).getAttribute("aria-selected")).toBe("true");
    await page.getByLabel("Description").waitFor();
    expect(page.url()).toMatch(/#\/flags\/checkout$/);
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("saves prerequisites, shows the server's cycle and unknown-flag errors next to them, and guards them", async () => {
    await app.fp.flags.create({ key: "base", enabled: true });
    await app.fp.flags.create({ key: "child", enabled: true });
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "child" }).click();
    await page.getByRole("heading", { level: 1, name: "child" }).waitFor();
    await page.getByRole("button", { name: "+ Prerequisite" }).click();
    const flagField = page.getByLabel("Flag (prerequisite 1)");
    await poll(() => page.locator('[data-error-for="prerequisites.0.flagKey"]:focus').count()).toBe(1);
    // The flags the key can see are offered; the flag itself is not.
    await poll(() =>
      page.locator("#prerequisite-flags option").evaluateAll((os) => os.map((o) => o.getAttribute("value"))),
    ).toEqual(expect.arrayContaining(["base", "checkout"]));
    expect(await page.locator('#prerequisite-flags option[value="child"]').count()).toBe(0);
    await flagField.fill("base");
    await page.getByLabel("Must be (prerequisite 1)").selectOption("off");

    // Only the prerequisite was edited, and leaving asks first.
    await page.getByRole("link", { name: "← All flags" }).click();
    await page.getByRole("dialog", { name: "Leave without saving?" }).waitFor();
    await page.getByRole("button", { name: "Keep editing" }).click();
    expect(await flagField.inputValue()).toBe("base");
    // A switch to the History tab and back keeps the edit.
    await page.getByRole("tab", { name: "History" }).click();
    await page.getByRole("tab", { name: "Settings" }).click();
    expect(await flagField.inputValue()).toBe("base");

    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").filter({ hasText: "Saved flag child" }).waitFor();
    expect((await read<{ prerequisites: unknown }>(app, "/v1/flags/child")).prerequisites).toEqual([
      { flagKey: "base", enabled: false },
    ]);
    // Saved: leaving asks nothing.
    await page.getByRole("link", { name: "← All flags" }).click();
    await page.getByRole("heading", { level: 1, name: "Flags" }).waitFor();

    // base → child → base is a cycle: refused, the message beside the prerequisites.
    await page.getByRole("link", { name: "base" }).click();
    await page.getByRole("heading", { level: 1, name: "base" }).waitFor();
    await page.getByRole("button", { name: "+ Prerequisite" }).click();
    await page.getByLabel("Flag (prerequisite 1)").fill("child");
    await page.getByRole("button", { name: "Save changes" }).click();
    const cycle = page.locator("#prerequisites-error");
    await cycle.waitFor();
    expect(await cycle.textContent()).toContain("Would make a cycle: base → child → base");
    expect(await page.locator("#form-error").textContent()).toContain("1 problem, shown next to the fields");
    expect((await read<{ prerequisites: unknown }>(app, "/v1/flags/base")).prerequisites).toEqual([]);

    // An unknown flag: the message under that row's field, which is marked invalid and focused.
    await page.getByLabel("Flag (prerequisite 1)").fill("ghost");
    await page.getByRole("button", { name: "Save changes" }).click();
    const field = page.getByLabel("Flag (prerequisite 1)");
    await poll(() => field.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator('[data-error-slot="prerequisites.0.flagKey"]').textContent()).toBe(
      'Names no flag ("ghost")',
    );
    expect(await cycle.isVisible()).toBe(false);
    expect(await page.locator('[data-error-for="prerequisites.0.flagKey"]:focus').count()).toBe(1);

    // Removing the row, then saving, clears the problem.
    await page.getByRole("button", { name: "Remove prerequisite 1" }).click();
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").filter({ hasText: "Saved flag base" }).waitFor();
    expect(page.problems.filter((p) => !p.includes("422"))).toEqual([]);
    await page.close();
  });

  it("shows the server's refusal of a prerequisite chain deeper than 10 under Prerequisites", async () => {
    // chain-0 ← chain-1 ← … ← chain-10: chain-10 is 10 deep, the most allowed.
    for (let i = 0; i <= 10; i++) {
      await app.fp.flags.create({
        key: `chain-${i}`,
        prerequisites: i === 0 ? [] : [{ flagKey: `chain-${i - 1}`, enabled: true }],
      });
    }
    await app.fp.flags.create({ key: "on-top" });
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.evaluate('location.hash = "#/flags/on-top"');
    await page.getByRole("heading", { level: 1, name: "on-top" }).waitFor();
    await page.getByRole("button", { name: "+ Prerequisite" }).click();
    await page.getByLabel("Flag (prerequisite 1)").fill("chain-10");
    await page.getByRole("button", { name: "Save changes" }).click();
    const slot = page.locator("#prerequisites-error");
    await slot.waitFor();
    expect(await slot.textContent()).toBe("Would make a chain of 11 prerequisites; at most 10");
    expect((await read<{ prerequisites: unknown }>(app, "/v1/flags/on-top")).prerequisites).toEqual([]);
    await page.close();
  });

  it("says which flags need a flag that cannot be deleted", async () => {
    await app.fp.flags.create({ key: "needed", enabled: true });
    await app.fp.flags.create({ key: "needer", prerequisites: [{ flagKey: "needed", enabled: true }] });
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "needed", exact: true }).click();
    await page.getByRole("button", { name: "Delete flag…" }).click();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    const error = page.locator("#delete-error");
    await error.waitFor();
    expect(await error.textContent()).toContain('is a prerequisite of "needer"');
    expect((await app.call("GET", "/v1/flags/needed")).status).toBe(200);
    expect(await page.getByRole("heading", { level: 1, name: "needed" }).isVisible()).toBe(true);
    await page.close();
  });

  it("gives a flags:read key the history, prerequisites and schedules to read, and nothing that would fail", async () => {
    await app.fp.flags.schedules.create("needer", {
      at: new Date(Date.now() + 86_400_000).toISOString(),
      changes: { enabled: true },
    });
    const { key } = await app.fp.keys.create({ name: "reader", scopes: ["flags:read"] });
    const page = await browser.newPage();
    await connect(page, dashboard, key);
    await page.getByRole("link", { name: "needer" }).click();
    await page.getByRole("heading", { level: 1, name: "needer" }).waitFor();
    const flagField = page.getByLabel("Flag (prerequisite 1)");
    expect(await flagField.inputValue()).toBe("needed");
    expect(await flagField.isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "+ Prerequisite" }).isDisabled()).toBe(true);
    await poll(() => itemTexts(page, "#schedule-list > li")).toEqual([expect.stringMatching(/pending.*Switch on/)]);
    expect(await page.locator("#schedule-list button").count()).toBe(0);
    expect(await page.locator("#schedule-form").isVisible()).toBe(false);
    await page.getByRole("tab", { name: "History" }).click();
    await poll(() => page.locator("#history-list > li").count()).toBe(1);
    expect(await itemTexts(page, "#history-list .change")).toContain("Prerequisite 1 added: needed must be on");
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("still shows the history of a deleted flag", async () => {
    await app.fp.flags.create({ key: "gone-soon", description: "Short-lived" });
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "gone-soon" }).click();
    await page.getByRole("button", { name: "Delete flag…" }).click();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Deleted flag gone-soon" }).waitFor();
    await page.evaluate('location.hash = "#/flags/gone-soon/history"');
    await page.getByText("No flag has the key “gone-soon”").waitFor();
    const entries = page.locator("#history-list > li");
    await poll(() => entries.count()).toBe(2);
    expect(await itemTexts(page, "#history-list > li > .history-head")).toEqual([
      expect.stringMatching(/^Deleted by API key “test”/),
      expect.stringMatching(/^Created by the application \(in process\)/),
    ]);
    expect(await itemTexts(page, "#history-list > li:nth-child(1) .change")).toEqual([
      "Description: “Short-lived”",
      "Enabled: off",
    ]);
    expect(await page.getByRole("tab", { name: "History" }).isVisible()).toBe(false);
    expect(await page.getByLabel("Description").isVisible()).toBe(false);
    // A key that never named a flag has no history either: nothing but "not found".
    await page.evaluate('location.hash = "#/flags/never-was"');
    await page.getByText("No flag has the key “never-was”").waitFor();
    await poll(() => page.locator("#history-panel").isVisible()).toBe(false);
    expect(await page.locator("#alert").isVisible()).toBe(false);
    await page.close();
  });
});
