import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_TYPES } from "../../src/webhooks/event-types.js";
import { createTestStorage, type TestDatabase } from "../support/databases.js";
import { startApp, type TestApp } from "../support/servers.js";
import { type Receiver, startReceiver } from "../webhooks/support/receiver.js";
import { type Browser, connect, launchBrowser } from "./browser.js";

/**
 * The Webhooks page against a real server on SQLite and a real receiver on 127.0.0.1: an endpoint
 * created in the page gets the signed deliveries of the events it chose, the page shows each
 * delivery with its status and attempts, and Replay sends it again (a new attempt, same
 * webhook-id).
 */

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 50 });

describe("dashboard: webhooks", { timeout: 60_000 }, () => {
  let app: TestApp;
  let browser: Browser;
  let receiver: Receiver;
  let database: TestDatabase;

  beforeAll(async () => {
    receiver = await startReceiver();
    const created = await createTestStorage("sqlite");
    database = created.database;
    [app, browser] = await Promise.all([
      startApp({
        storage: created.storage,
        // The receiver is on 127.0.0.1; a failed attempt is retried only an hour later, so the
        // second attempt the test sees is the replay's.
        webhooks: { allowPrivateNetworks: true, pollIntervalMs: 100, retrySchedule: "1h", retryJitter: 0 },
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
    await database?.drop();
  });

  it("creates an endpoint, shows its delivery and attempts, replays it and deletes it", async () => {
    // The receiver is down for the first attempt of each event, up afterwards.
    receiver.answer = (_delivery, nth) =>
      nth === 1
        ? { status: 503, body: '<img src=x onerror="document.title=1">down for maintenance' }
        : { status: 200, body: "ok" };
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
    await page.getByText("No endpoints yet").waitFor();
    const boxes = page.locator("#webhooks-view fieldset input[type=checkbox]");
    expect(await boxes.evaluateAll((els) => els.map((el) => el.getAttribute("value")))).toEqual([
      ...WEBHOOK_EVENT_TYPES,
    ]);

    // Refused in the page: no URL, no event; refused by the server: not http(s).
    const create = page.getByRole("button", { name: "Create endpoint" });
    await create.click();
    await page.locator("#webhook-endpoint-error", { hasText: "Type the URL" }).waitFor();
    await page.getByLabel("Endpoint URL").fill(`${receiver.url}/hooks`);
    await create.click();
    await page.locator("#webhook-events-error", { hasText: "Choose at least one event" }).waitFor();
    await page.getByLabel("flag.created").check();
    await page.getByLabel("suppression.added").check();
    await page.getByLabel("Endpoint URL").fill("ftp://example.com/hooks");
    await create.click();
    await page.locator("#webhook-endpoint-error", { hasText: "endpoint" }).waitFor();
    expect(await page.getByLabel("Endpoint URL").getAttribute("aria-invalid")).toBe("true");

    await page.getByLabel("Endpoint URL").fill(`${receiver.url}/hooks`);
    await create.click();
    const secret = (await page.locator("#webhook-secret").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_/);
    receiver.secrets = [secret];
    const row = page.locator("#webhooks-view tbody tr");
    await poll(() => row.count()).toBe(1);
    const hooks = (await (await app.call("GET", "/v1/webhooks")).json()) as {
      data: { id: string; endpoint: string; events: string[] }[];
    };
    expect(hooks.data).toEqual([
      expect.objectContaining({ endpoint: `${receiver.url}/hooks`, events: ["suppression.added", "flag.created"] }),
    ]);
    const hookId = hooks.data[0]!.id;
    expect(await row.getAttribute("data-id")).toBe(hookId);
    expect(await row.locator("[data-chip=webhook]").textContent()).toBe("Enabled");

    // An event happens; its first attempt fails (503) and waits an hour for the next.
    expect((await app.call("POST", "/v1/flags", { key: "hooked" })).status).toBe(201);
    await receiver.waitFor(1);
    await page.getByRole("link", { name: `${receiver.url}/hooks` }).click();
    await page.getByRole("heading", { level: 1, name: `${receiver.url}/hooks` }).waitFor();
    const delivery = page.locator("#webhook-view tbody tr[data-id]");
    await poll(() => delivery.count()).toBe(1);
    expect(await delivery.locator("td").first().textContent()).toBe("flag.created");
    const chip = delivery.locator("[data-chip=delivery]");
    // Tried, a retry scheduled.
    await poll(() => chip.getAttribute("data-state")).toBe("attempting");
    expect(await chip.textContent()).toBe("Retrying");
    await delivery.getByRole("button", { name: "Details" }).click();
    const attempts = page.locator("#webhook-view .attempt");
    await poll(() => attempts.count()).toBe(1);
    expect(await attempts.first().textContent()).toContain("HTTP 503");
    // The receiver's answer is shown as text, markup and all.
    expect(await attempts.first().textContent()).toContain(
      '<img src=x onerror="document.title=1">down for maintenance',
    );
    expect(await page.locator("#webhook-view img").count()).toBe(0);
    expect(await delivery.getByRole("button", { name: "Details" }).getAttribute("aria-expanded")).toBe("true");

    // Replay: sent again at once, same webhook-id, now answered 200.
    await delivery.getByRole("button", { name: /^Replay flag\.created/ }).click();
    await page.getByRole("status").filter({ hasText: "Replayed the flag.created event" }).waitFor();
    await poll(() => chip.getAttribute("data-state")).toBe("success");
    await poll(() => attempts.count()).toBe(2);
    expect(await attempts.first().textContent()).toContain("HTTP 200");
    expect(await chip.textContent()).toBe("Delivered");
    const received = await receiver.waitFor(2);
    expect(received).toHaveLength(2);
    expect(received[1]!.id).toBe(received[0]!.id);
    expect(received.map((d) => d.verified)).toEqual([
      [{ resend: true, standard: true }],
      [{ resend: true, standard: true }],
    ]);
    const eventId = (await delivery.getAttribute("data-id"))!;
    const api = (await (await app.call("GET", `/v1/webhooks/${hookId}/events/${eventId}/attempts`)).json()) as {
      data: { http_status_code: number }[];
    };
    expect(api.data.map((a) => a.http_status_code)).toEqual([200, 503]);

    // Delete asks first, then removes the endpoint.
    await page.getByRole("link", { name: "← All endpoints" }).click();
    await page.getByRole("button", { name: `Delete ${receiver.url}/hooks` }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this endpoint?" });
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("status").filter({ hasText: "Deleted the endpoint" }).waitFor();
    await page.getByText("No endpoints yet").waitFor();
    expect((await app.call("GET", `/v1/webhooks/${hookId}`)).status).toBe(404);
    expect(page.problems.filter((p) => !p.includes("422"))).toEqual([]);
    await page.close();
  });

  it("says so for an id that names no endpoint, and shows none of an endpoint's parts", async () => {
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, app.key);
    await page.evaluate('location.hash = "#/webhooks/0190aaaa-0000-7000-8000-000000000000"');
    await page.getByRole("heading", { level: 1, name: "Endpoint not found" }).waitFor();
    await page.getByText("No webhook endpoint has the id 0190aaaa-0000-7000-8000-000000000000.").waitFor();
    expect(await page.getByRole("button", { name: "Refresh" }).isVisible()).toBe(false);
    expect(await page.locator("#webhook-view tbody tr").count()).toBe(0);
    expect(page.problems.filter((p) => !p.includes("404"))).toEqual([]);
    await page.close();
  });

  it("tells a key without full_access that webhooks need it", async () => {
    const created = (await (
      await app.call("POST", "/v1/webhooks", { endpoint: `${receiver.url}/other`, events: ["flag.deleted"] })
    ).json()) as { id: string };
    const { key } = await app.fp.keys.create({ name: "mail", scopes: ["flags:read", "emails:read", "emails:send"] });
    const page = await browser.newPage(1280);
    await connect(page, `${app.url}/dashboard/`, key);
    await page.getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.getByRole("note").filter({ hasText: "every webhook route needs the full_access scope" }).waitFor();
    expect(await page.getByRole("button", { name: "Create endpoint" }).isVisible()).toBe(false);
    await page.evaluate(`location.hash = "#/webhooks/${created.id}"`);
    await page.locator("#webhook-view").getByRole("note").filter({ hasText: "full_access" }).waitFor();
    expect(await page.locator("#webhook-view tbody tr").count()).toBe(0);
    expect(page.problems).toEqual([]);
    await page.close();
  });
});
