import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookEventTypesScript } from "../../adapters/http/dashboard/webhook-event-types.js";
import { WEBHOOK_EVENT_TYPES } from "../../src/webhooks/event-types.js";
import { startApp, type TestApp } from "../support/servers.js";

const PUBLIC = new URL("../../adapters/http/dashboard/public/", import.meta.url);

// One list of webhook event types (src/webhooks/event-types.ts), which the dashboard's form reads.
describe("the dashboard's webhook event types", () => {
  let app: TestApp;
  beforeAll(async () => (app = await startApp()));
  afterAll(() => app.close());

  it("are what webhook-event-types.js on disk holds (regenerate it from webhookEventTypesScript())", () => {
    expect(readFileSync(new URL("webhook-event-types.js", PUBLIC), "utf8")).toBe(webhookEventTypesScript());
  });

  it("are served from the server's own list", async () => {
    const response = await fetch(`${app.url}/dashboard/webhook-event-types.js`);
    expect(response.status).toBe(200);
    const served = await response.text();
    expect(served).toBe(webhookEventTypesScript());
    expect(served).toContain(JSON.stringify(WEBHOOK_EVENT_TYPES));
  });
});
