import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { listenUnderApi, startApp, type TestApp } from "../support/servers.js";
import { type Browser, connect, launchBrowser, tabTo } from "./browser.js";

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000, interval: 50 });

describe("dashboard: keys, errors near their fields, keyboard, paging", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  let dashboard: string;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
    dashboard = `${app.url}/dashboard/`;
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("shows an auth error for a bad key and keeps nothing", async () => {
    const page = await browser.newPage();
    await page.goto(dashboard);
    await page.getByLabel("API key").fill("fp_not-a-real-key");
    await page.getByRole("button", { name: "Connect" }).click();
    const error = page.locator("#api-key-error");
    await error.filter({ hasText: "invalid_api_key" }).waitFor();
    expect(await error.textContent()).toContain("The API key is unknown or revoked");
    expect(await page.getByLabel("API key").getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
    await page.close();
  });

  it("says which scope a restricted key lacks", async () => {
    const { key } = await app.fp.keys.create({ name: "browser", scopes: ["flags:evaluate"] });
    const page = await browser.newPage();
    await page.goto(dashboard);
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.locator("#api-key-error", { hasText: "restricted_api_key" }).waitFor();
    expect(await page.locator("#api-key-error").textContent()).toContain('lacks the "flags:read" scope');
    await page.close();
  });

  it("goes back to the key form when the key is revoked mid-session", async () => {
    const created = await app.fp.keys.create({ name: "soon revoked", scopes: ["full_access"] });
    const page = await browser.newPage();
    await connect(page, dashboard, created.key);
    await app.fp.keys.revoke(created.id);
    await page.getByRole("link", { name: "New flag" }).click();
    await page.getByLabel("Key", { exact: true }).fill("after-revoke");
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.locator("#api-key-error", { hasText: "invalid_api_key" }).waitFor();
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
    expect((await app.call("GET", "/v1/flags/after-revoke")).status).toBe(404);
    await page.close();
  });

  it("shows the 409 message next to the key when the key is taken", async () => {
    await app.call("POST", "/v1/flags", { key: "taken", description: "already here" });
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "New flag" }).click();
    const key = page.getByLabel("Key", { exact: true });
    await key.fill("taken");
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.locator("#flag-key-error", { hasText: 'A flag with key "taken" already exists' }).waitFor();
    expect(await key.getAttribute("aria-invalid")).toBe("true");
    expect(await key.getAttribute("aria-describedby")).toContain("flag-key-error");
    await poll(() => page.locator("#flag-key:focus").count()).toBe(1);
    const stored = (await (await app.call("GET", "/v1/flags/taken")).json()) as { data: { description: string } };
    expect(stored.data.description).toBe("already here");
    await page.close();
  });

  it("checks the key in the page; a bad key is refused by the server too and creates nothing", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "New flag" }).click();
    const flagKeys = async () =>
      ((await (await app.call("GET", "/v1/flags")).json()) as { data: { key: string }[] }).data.map((f) => f.key);
    const before = await flagKeys();
    const posts: Promise<number>[] = [];
    page.on("request", (r) => {
      if (r.method() !== "GET") posts.push(r.response().then((answer) => answer?.status() ?? 0));
    });
    const key = page.getByLabel("Key", { exact: true });
    const error = page.locator("#flag-key-error");
    for (const bad of ["-starts-with-dash", "has space", "ümlaut", "x".repeat(129)]) {
      await key.fill(bad);
      await page.getByRole("button", { name: "Create flag" }).click();
      await error.filter({ hasText: "must be 1 to 128 characters of A-Z a-z 0-9 . _ -" }).waitFor();
      expect(await key.getAttribute("aria-invalid"), bad).toBe("true");
    }
    await key.fill("");
    await page.getByRole("button", { name: "Create flag" }).click();
    await error.filter({ hasText: "Enter a key" }).waitFor();
    // Fixing the key clears the message while typing; leaving a bad key shows it on blur.
    await key.fill("fine.key_1");
    await error.waitFor({ state: "hidden" });
    expect(await key.getAttribute("aria-invalid")).toBeNull();
    await key.fill("bad key");
    await page.getByLabel("Description").focus();
    await error.waitFor();
    // Each Create was sent (so the server could name any other problem) and refused.
    expect(await Promise.all(posts)).toEqual([422, 422, 422, 422, 422]);
    expect(await flagKeys()).toEqual(before);
    await page.close();
  });

  it("shows the server's 422 details next to the fields they name", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "New flag" }).click();
    await page.getByLabel("Key", { exact: true }).fill("rejected");
    await page.getByRole("button", { name: "+ Percentage rule" }).click();
    await page.getByLabel("Percentage of users (rule 1)").fill("150");
    await page.getByRole("button", { name: "+ Attribute rule" }).click();
    await page.getByLabel("Attribute (rule 2)").fill("appVersion");
    await page.getByLabel("Operator (rule 2)").selectOption("semver_gt");
    await page.getByLabel("Value (rule 2)").fill("not-a-version");
    await page.getByRole("button", { name: "+ Users rule" }).click();
    const response = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/v1/flags"));
    await page.getByRole("button", { name: "Create flag" }).click();
    const body = (await (await response).json()) as {
      error: { code: string; details: { path: string; message: string }[] };
    };
    expect((await response).status()).toBe(422);
    expect(body.error.details.map((d) => d.path)).toEqual(["rules.0.percentage", "rules.1.value", "rules.2.userIds"]);

    const near = (path: string) => page.locator(`[data-error-slot="${path}"]`);
    await near("rules.0.percentage").filter({ hasText: "Must be at most 100" }).waitFor();
    await near("rules.1.value").filter({ hasText: "semantic version" }).waitFor();
    await near("rules.2.userIds").filter({ hasText: "Must hold at least 1 item" }).waitFor();
    expect(await page.getByLabel("Percentage of users (rule 1)").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Value (rule 2)").getAttribute("aria-invalid")).toBe("true");
    await page.locator("#form-error", { hasText: "3 problems, shown next to the fields" }).waitFor();
    await poll(() => page.locator('[data-error-for="rules.0.percentage"]:focus').count()).toBe(1);

    // Fix them and save: the messages go.
    await page.getByLabel("Percentage of users (rule 1)").fill("15.5");
    await page.getByLabel("Value (rule 2)").fill("2.1.0");
    await page.getByLabel("User IDs (rule 3) (one per line)").fill("u1");
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByRole("heading", { level: 1, name: "rejected" }).waitFor();
    expect(await page.locator(".field-error:visible").count()).toBe(0);
    const saved = (await (await app.call("GET", "/v1/flags/rejected")).json()) as { data: { rules: unknown[] } };
    expect(saved.data.rules).toEqual([
      { type: "percentage", percentage: 15.5 },
      { type: "attribute", attribute: "appVersion", operator: "semver_gt", value: "2.1.0" },
      { type: "users", userIds: ["u1"] },
    ]);
    await page.close();
  });

  it("keeps typed values exact: numbers, booleans and mixed lists round-trip", async () => {
    await app.call("POST", "/v1/flags", {
      key: "typed",
      rules: [
        { type: "attribute", attribute: "age", operator: "gte", value: 18 },
        { type: "attribute", attribute: "beta", operator: "equals", value: true },
        { type: "attribute", attribute: "tier", operator: "in", value: ["1", 1] },
        { type: "attribute", attribute: "signup", operator: "lt", value: "2025-01-01T00:00:00Z" },
      ],
    });
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "typed" }).click();
    await page.getByRole("heading", { level: 1, name: "typed" }).waitFor();
    expect(await page.getByLabel("Value type (rule 1)").inputValue()).toBe("number");
    expect(await page.getByLabel("Value (rule 2)").inputValue()).toBe("true");
    expect(await page.getByLabel("Value type (rule 3)").inputValue()).toBe("json");
    expect(await page.getByLabel("Value type (rule 4)").inputValue()).toBe("date");
    await page.getByLabel("Value (rule 2)").selectOption("false");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").filter({ hasText: "Saved flag typed" }).waitFor();
    const saved = (await (await app.call("GET", "/v1/flags/typed")).json()) as {
      data: { rules: { value: unknown }[] };
    };
    expect(saved.data.rules.map((r) => r.value)).toEqual([18, false, ["1", 1], "2025-01-01T00:00:00Z"]);
    await page.close();
  });

  it("works with the keyboard only: create, save, enable, reorder, delete", async () => {
    const page = await browser.newPage();
    await page.goto(dashboard);
    // The key field has the focus on arrival.
    await poll(() => page.locator("#api-key:focus").count()).toBe(1);
    await page.keyboard.type(app.key);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Flags" }).waitFor();

    await tabTo(page, "#new-flag");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "New flag" }).waitFor();
    await tabTo(page, "#flag-key");
    await page.keyboard.type("keyboard-only");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Made without a mouse");
    await tabTo(page, '[data-add-rule="users"]');
    await page.keyboard.press("Space");
    // The new rule's first field takes the focus.
    await poll(() => page.locator('[data-error-for="rules.0.userIds"]:focus').count()).toBe(1);
    await page.keyboard.type("kim");
    await tabTo(page, '[data-add-rule="percentage"]');
    await page.keyboard.press("Enter");
    await poll(() => page.locator('[data-error-for="rules.1.percentage"]:focus').count()).toBe(1);
    await page.keyboard.type("20");
    await tabTo(page, "#save-flag");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "keyboard-only" }).waitFor();

    // Enable with Space on the switch.
    await tabTo(page, "#flag-enabled");
    await page.keyboard.press("Space");
    await page.getByRole("status").filter({ hasText: "keyboard-only is now on" }).waitFor();

    // Reorder: the percentage rule up, focus stays on the moved rule.
    await tabTo(page, '[aria-label="Move rule 2 up"]');
    await page.keyboard.press("Enter");
    await poll(() => page.locator('[aria-label="Move rule 1 down"]:focus').count()).toBe(1);
    await tabTo(page, "#save-flag");
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Saved flag keyboard-only" }).waitFor();
    const flag = (await (await app.call("GET", "/v1/flags/keyboard-only")).json()) as { data: Record<string, unknown> };
    expect(flag.data).toMatchObject({
      description: "Made without a mouse",
      enabled: true,
      rules: [
        { type: "percentage", percentage: 20 },
        { type: "users", userIds: ["kim"] },
      ],
    });

    // Delete: Escape cancels and gives the focus back; Enter on Delete confirms.
    await tabTo(page, "#delete-flag");
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").waitFor();
    await poll(() => page.locator("#cancel-delete:focus").count()).toBe(1);
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "hidden" });
    await poll(() => page.locator("#delete-flag:focus").count()).toBe(1);
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").waitFor();
    await tabTo(page, "#confirm-delete");
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Deleted flag keyboard-only" }).waitFor();
    expect((await app.call("GET", "/v1/flags/keyboard-only")).status).toBe(404);
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("pages through the list with the Link header and searches by key", async () => {
    const paged = await startApp();
    try {
      for (let i = 0; i < 130; i++) await paged.fp.flags.create({ key: `flag-${String(i).padStart(3, "0")}` });
      const page = await browser.newPage();
      await connect(page, `${paged.url}/dashboard/`, paged.key);
      const rows = page.locator("#flag-rows tr");
      await poll(() => rows.count()).toBe(100);
      await page.getByLabel("Search by key").fill("flag-01");
      await poll(() => rows.count()).toBe(10);
      // flag-120…flag-129 are on the second page: the search says what it covered.
      await page.getByLabel("Search by key").fill("flag-12");
      await page.getByText("No flag key contains “flag-12”.").waitFor();
      await page.getByText("Search covers the 100 flags loaded so far").waitFor();
      await page.getByRole("button", { name: "Load more flags" }).click();
      await poll(() => rows.count()).toBe(10);
      await page.getByRole("button", { name: "Load more flags" }).waitFor({ state: "hidden" });
      await page.getByLabel("Search by key").fill("");
      await poll(() => rows.count()).toBe(130);
      expect(await rows.last().getAttribute("data-key")).toBe("flag-129");
      await page.getByLabel("Search by key").fill("nothing-like-this");
      await page.getByText("No flag key contains “nothing-like-this”.").waitFor();
      await page.close();
    } finally {
      await paged.close();
    }
  });

  it("works under a mount prefix with a moved path", async () => {
    const handle = toNodeHandler(app.fp, { dashboard: { path: "/tools/flags" } });
    const running = await listenUnderApi(handle);
    try {
      const page = await browser.newPage();
      await connect(page, `${running.url}/api/tools/flags`, app.key);
      expect(new URL(page.url()).pathname).toBe("/api/tools/flags/");
      await page.getByRole("link", { name: "taken" }).waitFor();
      await page.close();
    } finally {
      await running.close();
    }
  });

  it("is not there when turned off", async () => {
    const off = await startApp({ http: { dashboard: false } });
    try {
      const page = await browser.newPage();
      const response = await page.goto(`${off.url}/dashboard/`);
      expect(response?.status()).toBe(404);
      await page.close();
    } finally {
      await off.close();
    }
  });

  it("sends the CSP, and the browser enforces it: an injected inline script does not run", async () => {
    const page = await browser.newPage();
    const response = await page.goto(dashboard);
    expect(await response?.headerValue("content-security-policy")).toContain("default-src 'self'");
    await page.getByLabel("API key").waitFor();
    // An inline script is refused by the policy, as it should be.
    await page.evaluate(
      `(() => { const s = document.createElement("script"); s.textContent = "window.injected = true"; document.body.append(s); })()`,
    );
    expect(await page.evaluate("window.injected === true")).toBe(false);
    expect(page.problems.some((p) => p.includes("Content Security Policy"))).toBe(true);
    await page.close();
  });
});
