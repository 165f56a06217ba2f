import type { Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";
import { type Browser, connect, launchBrowser } from "./browser.js";

// Each test here is one reported dashboard defect, driven in a real browser against the real API.

const poll = <T>(fn: () => Promise<T> | T, timeout = 10_000) => expect.poll(fn, { timeout, interval: 50 });

interface StoredFlag {
  enabled: boolean;
  description: string;
  rules: unknown[];
}
const storedFlag = async (app: TestApp, key: string) =>
  ((await (await app.call("GET", `/v1/flags/${key}`)).json()) as { data: StoredFlag }).data;

describe("dashboard defects", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  let dashboard: string;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
    dashboard = `${app.url}/dashboard/`;
    await app.fp.flags.create({ key: "present", description: "Here to stay", enabled: true });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("a missing flag shows that it is missing, not the previous flag's data and switch", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "present" }).click();
    await page.getByRole("heading", { level: 1, name: "present" }).waitFor();
    await page.getByRole("switch", { name: "Enabled" }).waitFor();

    await page.evaluate('location.hash = "#/flags/ghost"');
    await page.getByText("No flag has the key “ghost”").waitFor();
    expect(await page.getByRole("switch", { name: "Enabled" }).isVisible()).toBe(false);
    expect(await page.locator("#flag-meta").isVisible()).toBe(false);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).not.toContain("present");
    expect(await page.getByText("Here to stay").filter({ visible: true }).count()).toBe(0);
    expect(await page.getByLabel("Description").isVisible()).toBe(false);
    // Going to an existing flag again shows it whole.
    await page.evaluate('location.hash = "#/flags/present"');
    await page.getByRole("switch", { name: "Enabled" }).waitFor();
    expect(await page.getByText("No flag has the key").isVisible()).toBe(false);
    expect(page.problems.filter((p) => !p.includes("404"))).toEqual([]);
    await page.close();
  });

  it("asks before unsaved edits are lost, and keeps them when told to", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "present" }).click();
    await page.getByLabel("Description").fill("Edited, not saved");
    await page.getByRole("button", { name: "+ Users rule" }).click();

    await page.getByRole("link", { name: "All flags" }).click();
    const dialog = page.getByRole("dialog", { name: "Leave without saving?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Keep editing" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(new URL(page.url()).hash).toBe("#/flags/present");
    expect(await page.getByLabel("Description").inputValue()).toBe("Edited, not saved");
    expect(await page.getByLabel("User IDs (rule 1) (one per line)").isVisible()).toBe(true);

    // The browser's own prompt guards a reload or a closed tab.
    const prompts: string[] = [];
    page.on("dialog", (d) => {
      prompts.push(d.type());
      void d.dismiss();
    });
    await page.close({ runBeforeUnload: true });
    await poll(() => prompts).toEqual(["beforeunload"]);
    expect(page.isClosed()).toBe(false);

    // Discarding leaves, and nothing was saved.
    await page.getByRole("link", { name: "All flags" }).click();
    await dialog.getByRole("button", { name: "Discard changes" }).click();
    await page.getByRole("heading", { level: 1, name: "Flags" }).waitFor();
    expect((await storedFlag(app, "present")).description).toBe("Here to stay");

    // A flag opened and left untouched leaves without a question.
    await page.getByRole("link", { name: "present" }).click();
    await page.getByRole("heading", { level: 1, name: "present" }).waitFor();
    await page.getByRole("link", { name: "All flags" }).click();
    await page.getByRole("heading", { level: 1, name: "Flags" }).waitFor();
    expect(await dialog.isVisible()).toBe(false);
    await page.close();
  });

  it("takes the first click on “+ Percentage rule” right after leaving an invalid key", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "New flag" }).click();
    await page.getByLabel("Key", { exact: true }).fill("bad key");
    await page.getByRole("button", { name: "+ Percentage rule" }).click(); // once, with the mouse
    await poll(() => page.locator("#rule-list > li").count(), 2_000).toBe(1);
    await page.locator("#flag-key-error", { hasText: "must be 1 to 128 characters" }).waitFor();
    await page.close();
  });

  it("shows the server's errors for the other fields together with an invalid key's", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "New flag" }).click();
    await page.getByLabel("Key", { exact: true }).fill("bad key");
    await page.getByRole("button", { name: "+ Percentage rule" }).click();
    await page.getByLabel("Percentage of users (rule 1)").fill("150");
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.locator('[data-error-slot="rules.0.percentage"]', { hasText: "Must be at most 100" }).waitFor();
    const keyError = page.locator("#flag-key-error");
    expect(await keyError.textContent()).toBe(
      "The key must be 1 to 128 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit",
    );
    expect(await page.getByLabel("Key", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await poll(() => page.locator("#flag-key:focus").count()).toBe(1);
    const list = (await (await app.call("GET", "/v1/flags")).json()) as { data: { key: string }[] };
    expect(list.data.map((f) => f.key)).toEqual(["present"]);
    await page.close();
  });

  it("gives a flags:read key no switch or button that would fail", async () => {
    const { key } = await app.fp.keys.create({ name: "reader", scopes: ["flags:read", "flags:evaluate"] });
    const page = await browser.newPage();
    const writes: Request[] = [];
    page.on("request", (r) => {
      if (r.method() === "PATCH" || r.method() === "DELETE") writes.push(r);
    });
    await connect(page, dashboard, key);
    await page.getByText("This key can read flags but not change them").first().waitFor();
    const toggle = page.getByRole("switch", { name: "Enabled: present" });
    await poll(() => toggle.isDisabled()).toBe(true);
    expect(await page.getByRole("link", { name: "New flag" }).isVisible()).toBe(false);

    await page.getByRole("link", { name: "present" }).click();
    await page.getByRole("heading", { level: 1, name: "present" }).waitFor();
    expect(await page.getByRole("switch", { name: "Enabled" }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Save changes" }).isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: "Delete flag…" }).isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: "+ Users rule" }).isDisabled()).toBe(true);
    expect(await page.getByLabel("Description").isEditable()).toBe(false);
    // Reading still works: the try-it panel evaluates with flags:evaluate.
    await page.getByLabel("User ID", { exact: true }).fill("someone");
    await page.getByRole("button", { name: "Evaluate" }).click();
    await page.locator("#try-reason", { hasText: "no_rules" }).waitFor();
    expect(writes).toEqual([]);
    expect((await storedFlag(app, "present")).enabled).toBe(true);

    // A key that may write gets the switches back.
    const full = await browser.newPage();
    await connect(full, dashboard, app.key);
    await poll(() => full.getByRole("switch", { name: "Enabled: present" }).isEnabled()).toBe(true);
    expect(await full.getByText("This key can read flags but not change them").isVisible()).toBe(false);
    await Promise.all([page.close(), full.close()]);
  });

  it("creates a new flag enabled when its switch is on", async () => {
    const page = await browser.newPage();
    await connect(page, dashboard, app.key);
    await page.getByRole("link", { name: "New flag" }).click();
    await page.getByLabel("Key", { exact: true }).fill("born-on");
    const enabled = page.getByRole("switch", { name: "Enabled" });
    await enabled.check();
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByRole("heading", { level: 1, name: "born-on" }).waitFor();
    await page.getByRole("status").filter({ hasText: "Created flag born-on. It is on." }).waitFor();
    expect((await storedFlag(app, "born-on")).enabled).toBe(true);
    expect(await enabled.isChecked()).toBe(true);
    await page.close();
  });
});
