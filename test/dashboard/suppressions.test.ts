import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestStorage, type TestDatabase } from "../support/databases.js";
import { startApp, type TestApp } from "../support/servers.js";
import { type Browser, connect, launchBrowser } from "./browser.js";

/**
 * The Suppressions page against a real server on SQLite: what it lists is what
 * GET /v1/suppressions answers, an address added or removed in the page is added or removed in
 * the API, and a key without the scopes gets a page that says so instead of buttons that fail.
 */

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000, interval: 50 });

interface Suppression {
  id: string;
  email: string;
  origin: string;
  source_id: string | null;
}

describe("dashboard: suppressions", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  let database: TestDatabase;

  beforeAll(async () => {
    const created = await createTestStorage("sqlite");
    database = created.database;
    [app, browser] = await Promise.all([startApp({ storage: created.storage }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await database?.drop();
  });

  const listed = async () =>
    ((await (await app.call("GET", "/v1/suppressions")).json()) as { data: Suppression[] }).data;

  it("adds and removes an address, and the API agrees at each step", async () => {
    await app.call("POST", "/v1/suppressions", { email: "old@example.org" });
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Suppressions" }).click();
    await page.getByRole("heading", { level: 1, name: "Suppressions" }).waitFor();
    const rows = page.locator("#suppressions-view tbody tr");
    await poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute("data-email")).toBe("old@example.org");
    expect(await rows.first().locator("[data-chip=origin]").textContent()).toBe("Added by hand");

    // Add: the address is stored bare and lower-cased, as the API does.
    await page.getByLabel("Email address").fill("Zed Person <Zed@Example.org>");
    await page.getByRole("button", { name: "Add to list" }).click();
    await page.getByRole("status").filter({ hasText: "zed@example.org is on the suppression list." }).waitFor();
    await poll(() => rows.count()).toBe(2);
    expect(await rows.first().getAttribute("data-email")).toBe("zed@example.org");
    expect((await app.call("GET", "/v1/suppressions/zed@example.org")).status).toBe(200);
    expect(await page.getByLabel("Email address").inputValue()).toBe("");

    // A bad address: the server's message under the field, nothing added.
    await page.getByLabel("Email address").fill("not an address");
    await page.getByRole("button", { name: "Add to list" }).click();
    const error = page.locator("#suppression-email-error");
    await error.waitFor();
    expect(await error.textContent()).toMatch(/email/i);
    expect(await page.getByLabel("Email address").getAttribute("aria-invalid")).toBe("true");
    expect(await listed()).toHaveLength(2);

    // Remove asks first; Cancel keeps the entry.
    const remove = page.getByRole("button", { name: "Remove zed@example.org" });
    await remove.click();
    const dialog = page.getByRole("dialog", { name: "Remove from the suppression list?" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("flagpost will mail zed@example.org again.");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await app.call("GET", "/v1/suppressions/zed@example.org")).status).toBe(200);
    await poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe(
      "Remove zed@example.org",
    );

    await remove.click();
    await dialog.getByRole("button", { name: "Remove" }).click();
    await page.getByRole("status").filter({ hasText: "zed@example.org was removed" }).waitFor();
    await poll(() => rows.count()).toBe(1);
    expect((await app.call("GET", "/v1/suppressions/zed@example.org")).status).toBe(404);
    expect((await listed()).map((s) => s.email)).toEqual(["old@example.org"]);

    // Escape cancels too.
    await page.getByRole("button", { name: "Remove old@example.org" }).click();
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await listed()).toHaveLength(1);
    expect(page.problems.filter((p) => !p.includes("422"))).toEqual([]);
    await page.close();
  });

  it("pages through a long list with Load more addresses", async () => {
    const emails = Array.from({ length: 60 }, (_, i) => `user${String(i).padStart(2, "0")}@example.org`);
    expect((await app.call("POST", "/v1/suppressions/batch/add", { emails })).status).toBe(200);
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.evaluate('location.hash = "#/suppressions"');
    const rows = page.locator("#suppressions-view tbody tr");
    await poll(() => rows.count()).toBe(50);
    await page.getByRole("button", { name: "Load more addresses" }).click();
    await poll(() => rows.count()).toBe(61);
    expect(await page.getByRole("button", { name: "Load more addresses" }).isVisible()).toBe(false);
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("is read-only without emails:send and says why without emails:read", async () => {
    const reader = await app.fp.keys.create({ name: "reader", scopes: ["flags:read", "emails:read"] });
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, reader.key);
    await page.evaluate('location.hash = "#/suppressions"');
    await page.getByRole("note").filter({ hasText: "lacks the emails:send scope" }).waitFor();
    await poll(() => page.locator("#suppressions-view tbody tr").count()).toBeGreaterThan(0);
    expect(await page.getByRole("button", { name: /^Remove / }).count()).toBe(0);
    expect(await page.getByLabel("Email address").isVisible()).toBe(false);

    const flagsOnly = await app.fp.keys.create({ name: "flags only", scopes: ["flags:read"] });
    const other = await browser.newPage(1280);
    await connect(other, `${app.url}/dashboard/`, flagsOnly.key);
    await other.evaluate('location.hash = "#/suppressions"');
    await other.getByRole("note").filter({ hasText: "lacks the emails:read scope" }).waitFor();
    expect(await other.locator("#suppressions-view table").isVisible()).toBe(false);
    expect([...page.problems, ...other.problems]).toEqual([]);
    await page.close();
    await other.close();
  });
});
