import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, connect, launchBrowser } from "./browser.js";
import { DAY_MS, type GovernanceApp, itemTexts, poll, read, startGovernanceApp } from "./governance-app.js";

// Issue 14 item 6 in a real browser against the real API on SQLite: scheduled changes in the
// editor, the evaluations sparkline and the stale badge.

interface Schedule {
  id: string;
  at: string;
  changes: Record<string, unknown>;
  status: string;
}

describe("dashboard: schedules, evaluations and stale flags", { timeout: 60_000 }, () => {
  let app: GovernanceApp;
  let browser: Browser;
  let dashboard: string;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startGovernanceApp(), launchBrowser()]);
    dashboard = `${app.url}/dashboard/`;
    // Created two days ago and never evaluated since: stale (staleAfterDays is 1 here).
    app.shiftClock(-2 * DAY_MS);
    await app.fp.flags.create({ key: "old-flag", description: "Forgotten" });
    app.shiftClock(0);
    await app.fp.flags.create({ key: "busy", enabled: true });
    await app.fp.flags.create({ key: "timed" });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("adds a scheduled change at a local date-time, lists it, and cancels it", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "timed" }).click();
    await page.getByRole("heading", { name: "Scheduled changes" }).waitFor();
    await page.getByText("Nothing is scheduled.").waitFor();

    // Too far back: the server's 422 appears under the field.
    await page.getByLabel("When (your local time)").fill("2020-01-01T10:00:00");
    await page.getByRole("button", { name: "Schedule change" }).click();
    const atError = page.locator('[data-error-slot="at"]');
    await atError.waitFor();
    expect(await atError.textContent()).toMatch(/past/);
    expect(await read<Schedule[]>(app, "/v1/flags/timed/schedules")).toEqual([]);

    // Tomorrow, as typed in the browser's own time zone.
    const { local, iso } = (await page.evaluate(`(() => {
      const d = new Date(Date.now() + 86400000);
      d.setMilliseconds(0);
      const p = (n) => String(n).padStart(2, "0");
      const local = d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + "T" + p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds());
      return { local, iso: d.toISOString() };
    })()`)) as { local: string; iso: string };
    await page.getByLabel("When (your local time)").fill(local);
    await page.getByLabel("Change", { exact: true }).selectOption("Switch on");
    await page.getByRole("button", { name: "Schedule change" }).click();
    await page.getByRole("status").filter({ hasText: "Scheduled for" }).waitFor();
    const items = page.locator("#schedule-list > li");
    await poll(() => items.count()).toBe(1);
    expect((await itemTexts(page, "#schedule-list > li"))[0]).toMatch(/pending.*Switch on.*By API key “test”.*Cancel/);
    expect(await items.locator("time").getAttribute("datetime")).toBe(iso);
    const stored = await read<Schedule[]>(app, "/v1/flags/timed/schedules");
    expect(stored).toEqual([expect.objectContaining({ at: iso, changes: { enabled: true }, status: "pending" })]);
    expect(await page.getByText("Nothing is scheduled.").isVisible()).toBe(false);

    await items.getByRole("button", { name: /^Cancel the change “Switch on”/ }).click();
    await page.getByText("Nothing is scheduled.").waitFor();
    await page.getByRole("status").filter({ hasText: "The scheduled change was cancelled." }).waitFor();
    expect(await read<Schedule[]>(app, "/v1/flags/timed/schedules")).toEqual([]);
    expect(page.problems.filter((p) => !p.includes("422"))).toEqual([]);
    await page.close();
  });

  it("shows an applied schedule, and its change in the history", async () => {
    const created = await app.call("POST", "/v1/flags/timed/schedules", {
      at: new Date().toISOString(),
      changes: { enabled: true },
    });
    expect(created.status).toBe(201);
    await poll(async () => (await read<Schedule[]>(app, "/v1/flags/timed/schedules"))[0]?.status).toBe("applied");
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.goto(`${dashboard}#/flags/timed/history`);
    const head = page.locator("#history-list > li:nth-child(1) .history-head");
    await poll(async () => (await head.textContent()) ?? "").toMatch(/^Scheduled change applied by scheduled change /);
    expect(await itemTexts(page, "#history-list > li:nth-child(1) .change")).toEqual(["Enabled: off → changed to on"]);
    await page.getByRole("tab", { name: "Settings" }).click();
    await poll(() => itemTexts(page, "#schedule-list > li")).toEqual([
      expect.stringMatching(/applied.*Switch on.*Remove/),
    ]);
    await page.close();
  });

  it("schedules the rules and prerequisites in the form, and shows a schedule that failed with its reason", async () => {
    await app.fp.flags.create({ key: "later" });
    await app.fp.flags.create({ key: "doomed", enabled: true });
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "later" }).click();
    await page.getByRole("button", { name: "+ Percentage rule" }).click();
    await page.getByLabel("Percentage of users (rule 1)").fill("10");
    await page.getByRole("button", { name: "+ Prerequisite" }).click();
    await page.getByLabel("Flag (prerequisite 1)").fill("doomed");
    const at = new Date(Date.now() + 86_400_000);
    at.setSeconds(0, 0);
    const local = (await page.evaluate(
      `(() => { const d = new Date(${at.getTime()}); const p = (n) => String(n).padStart(2, "0");
        return d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + "T" + p(d.getHours()) + ":" + p(d.getMinutes()); })()`,
    )) as string;
    await page.getByLabel("When (your local time)").fill(local);
    await page.getByLabel("Change", { exact: true }).selectOption("Rules and prerequisites as in the form");
    await page.getByRole("button", { name: "Schedule change" }).click();
    await poll(() => itemTexts(page, "#schedule-list > li")).toEqual([
      expect.stringMatching(/pending.*Set 1 rule, set 1 prerequisite/),
    ]);
    const [scheduled] = await read<Schedule[]>(app, "/v1/flags/later/schedules");
    expect(scheduled).toMatchObject({
      at: at.toISOString(),
      changes: {
        rules: [{ type: "percentage", percentage: 10 }],
        prerequisites: [{ flagKey: "doomed", enabled: true }],
      },
    });
    // Scheduled, not saved.
    expect(await read<{ rules: unknown[] }>(app, "/v1/flags/later")).toMatchObject({ rules: [], prerequisites: [] });

    // A schedule whose prerequisite is deleted before it applies fails, with the reason shown.
    const soon = await app.call("POST", "/v1/flags/later/schedules", {
      at: new Date(Date.now() + 3000).toISOString(),
      changes: { prerequisites: [{ flagKey: "doomed", enabled: true }] },
    });
    expect(soon.status).toBe(201);
    expect((await app.call("DELETE", "/v1/flags/doomed")).status).toBe(204);
    const failed = ((await soon.json()) as { data: Schedule }).data.id;
    await poll(
      async () => (await read<Schedule[]>(app, "/v1/flags/later/schedules")).find((s) => s.id === failed)?.status,
    ).toBe("failed");
    await page.getByRole("link", { name: "← All flags" }).click();
    await page.getByRole("button", { name: "Discard changes" }).click();
    await page.getByRole("link", { name: "later" }).click();
    const item = page.locator(`#schedule-list > li[data-schedule-id="${failed}"]`);
    await item.waitFor();
    expect((await item.textContent())?.replace(/\s+/g, " ")).toMatch(
      /failed.*Set 1 prerequisite.*invalid_changes: .*Remove/,
    );
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("draws a sparkline of the flag's hourly evaluations once they are stored", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "busy" }).click();
    const summary = page.locator("#insights-summary");
    await poll(() => summary.textContent()).toBe("No evaluations stored in the last 7 days.");
    expect(await page.locator("svg.sparkline").count()).toBe(0);

    for (let i = 0; i < 5; i++) {
      const reply = await app.call("POST", "/v1/flags/busy/evaluate", { userId: `user-${i}` });
      expect(reply.status).toBe(200);
    }
    await app.fp.flagInsights.flush();
    await page.getByRole("button", { name: "Refresh" }).click();
    const chart = page.getByRole("img", { name: /^Evaluations per hour over the last 7 days: 5 in all/ });
    await chart.waitFor();
    expect(await chart.getAttribute("data-points")).toBe("168");
    const points = ((await page.locator("svg.sparkline polyline").getAttribute("points")) ?? "").split(" ");
    expect(points).toHaveLength(168);
    // One hour (the current one, or the last when the hour turned just now) holds them all: the
    // one point at the top of the box; every other hour is at the bottom.
    expect(points.filter((p) => p.endsWith(",2.0"))).toHaveLength(1);
    expect(points.filter((p) => p.endsWith(",30.0"))).toHaveLength(167);
    expect(await summary.textContent()).toMatch(/^5 evaluations in the last 7 days \(5 on, 0 off\)\. Last evaluated /);
    expect(await page.locator("#insights-stale").isVisible()).toBe(false);

    // The list draws one per flag: busy's with its total, the others say there were none.
    await page.getByRole("link", { name: "← All flags" }).click();
    const activity = (key: string) => page.locator(`#flag-rows tr[data-key="${key}"] .cell-activity`);
    await activity("busy")
      .getByRole("img", { name: /: 5 in all, at most 5 in one hour$/ })
      .waitFor();
    expect(await activity("busy").locator(".activity-total").textContent()).toBe("5");
    await poll(() => activity("old-flag").textContent()).toBe("No evaluations");
    expect(await activity("old-flag").locator("svg").count()).toBe(0);
    // A search re-renders the rows from what was loaded, without asking again.
    const asked: string[] = [];
    page.on("request", (r) => asked.push(r.url()));
    await page.getByLabel("Search by key").fill("bus");
    await activity("busy").getByRole("img").waitFor();
    expect(asked.filter((u) => u.includes("/insights"))).toEqual([]);
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("marks a stale flag in the list with a badge, and says why on its page", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    const row = (key: string) => page.locator(`#flag-rows tr[data-key="${key}"]`);
    await row("old-flag").waitFor();
    expect(await row("old-flag").locator(".badge-stale").textContent()).toBe("Stale");
    for (const key of ["busy", "timed"]) expect(await row(key).locator(".badge-stale").count()).toBe(0);
    const list = await read<{ key: string; stale: boolean }[]>(app, "/v1/flags");
    expect(list.filter((f) => f.stale).map((f) => f.key)).toEqual(["old-flag"]);

    await row("old-flag").getByRole("link", { name: "old-flag" }).click();
    const note = page.locator("#insights-stale");
    await note.waitFor();
    expect(await note.textContent()).toMatch(/^Stale: not evaluated in the stale window/);
    expect(page.problems).toEqual([]);
    await page.close();
  });
});
