import type { Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";
import { type Browser, connect, launchBrowser } from "./browser.js";

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000, interval: 50 });

interface Evaluation {
  enabled: boolean;
  reason: string;
  ruleIndex?: number;
}

describe("dashboard: create, target, save, enable, evaluate, edit, delete", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("does the whole flow of issue #6 against the same /v1 API", async () => {
    const page = await browser.newPage(1280);
    const requests: Request[] = [];
    page.on("request", (r) => requests.push(r));

    // Paste the key.
    await connect(page, `${app.url}/dashboard`, app.key);
    await page.getByText("No flags yet").waitFor();

    // A new flag with a users rule, an attribute rule and a 30% rule.
    await page.getByRole("link", { name: "New flag" }).click();
    await page.getByRole("heading", { level: 1, name: "New flag" }).waitFor();
    await page.getByLabel("Key", { exact: true }).fill("new-checkout");
    await page.getByLabel("Description").fill("The new checkout flow");
    await page.getByRole("button", { name: "+ Users rule" }).click();
    await page.getByLabel("User IDs (rule 1) (one per line)").fill("alice\nbob");
    await page.getByRole("button", { name: "+ Attribute rule" }).click();
    await page.getByLabel("Attribute (rule 2)").fill("plan");
    await page.getByLabel("Operator (rule 2)").selectOption("in");
    await page.getByLabel("Values (rule 2) (one per line)").fill("pro\nenterprise");
    await page.getByRole("button", { name: "+ Percentage rule" }).click();
    await page.getByLabel("Percentage of users (rule 3)").fill("30");

    // Save, then enable.
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByRole("heading", { level: 1, name: "new-checkout" }).waitFor();
    await page.getByRole("status").filter({ hasText: "Created flag new-checkout" }).waitFor();
    const enabled = page.getByRole("switch", { name: "Enabled" });
    await enabled.check();
    await page.getByRole("status").filter({ hasText: "new-checkout is now on" }).waitFor();

    // The API shows the same flag.
    const got = await app.call("GET", "/v1/flags/new-checkout");
    expect(got.status).toBe(200);
    const { data: flag } = (await got.json()) as { data: Record<string, unknown> };
    expect(flag).toMatchObject({
      key: "new-checkout",
      description: "The new checkout flow",
      enabled: true,
      rules: [
        { type: "users", userIds: ["alice", "bob"] },
        { type: "attribute", attribute: "plan", operator: "in", value: ["pro", "enterprise"] },
        { type: "percentage", percentage: 30 },
      ],
    });
    const list = (await (await app.call("GET", "/v1/flags")).json()) as { data: { key: string; enabled: boolean }[] };
    expect(list.data).toEqual([
      expect.objectContaining({ key: "new-checkout", enabled: true, description: "The new checkout flow" }),
    ]);

    // The try-it panel answers what POST /v1/flags/{key}/evaluate answers, for the same input.
    const inputs = [
      { userId: "alice" },
      { userId: "zoe", attributes: { plan: "pro" } },
      { userId: "zoe", attributes: { plan: "free" } },
      ...Array.from({ length: 6 }, (_, i) => ({ userId: `user-${i}` })),
      {},
    ];
    const reasons = new Set<string>();
    for (const input of inputs) {
      const expected = (
        (await (await app.call("POST", "/v1/flags/new-checkout/evaluate", input)).json()) as { data: Evaluation }
      ).data;
      reasons.add(`${expected.reason}:${expected.ruleIndex ?? "-"}`);
      await page.getByLabel("User ID", { exact: true }).fill(input.userId ?? "");
      await page.getByLabel("Attributes (JSON object)").fill(input.attributes ? JSON.stringify(input.attributes) : "");
      await page.getByRole("button", { name: "Evaluate" }).click();
      const who = input.userId === undefined ? "no user ID" : `user “${input.userId}”`;
      await page.locator("#try-for", { hasText: who }).waitFor();
      const shown = {
        enabled: (await page.locator("#try-enabled").textContent()) === "true",
        reason: await page.locator("#try-reason").textContent(),
        rule: await page.locator("#try-rule").textContent(),
      };
      expect(shown, JSON.stringify(input)).toEqual({
        enabled: expected.enabled,
        reason: expected.reason,
        rule: expected.ruleIndex === undefined ? "—" : expect.stringContaining(`(ruleIndex ${expected.ruleIndex})`),
      });
    }
    // The inputs reach every rule, a percentage miss and the no-userId case.
    expect(reasons).toEqual(new Set(["rule_match:0", "rule_match:1", "rule_match:2", "no_rule_match:-"]));

    // Edit: a new description, the percentage rule moved to the top and raised to 45%.
    await page.getByLabel("Description").fill("Checkout v2, rolling out");
    await page.getByRole("button", { name: "Move rule 3 up" }).click();
    await page.getByRole("button", { name: "Move rule 2 up" }).click();
    await page.getByLabel("Percentage of users (rule 1)").fill("45");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").filter({ hasText: "Saved flag new-checkout" }).waitFor();
    const edited = (
      (await (await app.call("GET", "/v1/flags/new-checkout")).json()) as { data: Record<string, unknown> }
    ).data;
    expect(edited).toMatchObject({
      description: "Checkout v2, rolling out",
      enabled: true,
      rules: [
        { type: "percentage", percentage: 45 },
        { type: "users" },
        { type: "attribute", value: ["pro", "enterprise"] },
      ],
    });

    // The list shows it; switching it off there goes through the API too.
    await page.getByRole("link", { name: "All flags" }).click();
    const row = page.locator("tr", { has: page.getByRole("link", { name: "new-checkout" }) });
    await row.getByText("Checkout v2, rolling out").waitFor();
    await row.getByRole("switch", { name: "Enabled: new-checkout" }).uncheck();
    await page.getByRole("status").filter({ hasText: "new-checkout is now off" }).waitFor();
    await poll(
      async () =>
        ((await (await app.call("GET", "/v1/flags/new-checkout")).json()) as { data: { enabled: boolean } }).data
          .enabled,
    ).toBe(false);

    // Delete, with confirmation.
    await page.getByRole("link", { name: "new-checkout" }).click();
    await page.getByRole("button", { name: "Delete flag…" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this flag?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("status").filter({ hasText: "Deleted flag new-checkout" }).waitFor();
    await page.getByText("No flags yet").waitFor();
    expect((await app.call("GET", "/v1/flags/new-checkout")).status).toBe(404);

    // The key went only into the Authorization header of /v1 calls: no URL, no cookie, no other storage.
    const v1 = requests.filter((r) => new URL(r.url()).pathname.startsWith("/v1/"));
    expect(v1.length).toBeGreaterThan(10);
    for (const r of requests) expect(r.url()).not.toContain(app.key);
    for (const r of v1) expect(await r.headerValue("authorization")).toBe(`Bearer ${app.key}`);
    for (const r of requests.filter((r) => !v1.includes(r))) expect(await r.headerValue("authorization")).toBeNull();
    expect(
      await page.evaluate('[document.cookie, localStorage.length, sessionStorage.getItem("flagpost.apiKey")]'),
    ).toEqual(["", 0, app.key]);
    expect((await page.context().cookies()).length).toBe(0);
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("keeps the key across a reload of the tab, forgets it on request, and a new tab starts without one", async () => {
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Flags" }).waitFor();
    await page.getByRole("button", { name: "Forget key" }).click();
    await page.getByLabel("API key").waitFor();
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
    const other = await browser.newPage(1280);
    await other.goto(`${app.url}/dashboard/`);
    await other.getByRole("heading", { level: 1, name: "Connect to flagpost" }).waitFor();
    await Promise.all([page.close(), other.close()]);
  });
});
