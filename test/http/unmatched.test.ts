import { createServer } from "node:http";
import { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toFetchHandler, toNodeHandler } from "../../adapters/http/index.js";
import { createFlagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { listen, startApp, type TestApp } from "../support/servers.js";

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => app?.close());

describe("the Resend SDK pointed at the host without /v1", () => {
  it("gets Resend's error shape with a message that says to add /v1 to baseUrl", async () => {
    const resend = new Resend(app.key, { baseUrl: app.url }); // Resend's own base URL has no path
    const sent = await resend.emails.send({ from: "a@acme.example", to: "b@example.org", subject: "s", text: "t" });
    expect(sent.data).toBeNull();
    expect(sent.error?.name).toBe("not_found");
    expect(sent.error?.statusCode).toBe(404);
    expect(sent.error?.message).toContain("baseUrl");
    expect(sent.error?.message).toContain(`${app.url}/v1`);
    // Each resource the SDK reaches at the root: emails (batch too), domains, webhooks, suppressions, …
    const batch = await resend.batch.send([{ from: "a@acme.example", to: "b@example.org", subject: "s", text: "t" }]);
    expect(batch.error?.message).toContain("/v1");
    const got = await resend.emails.get("01h");
    expect(got.error?.message).toContain("/v1");
    expect((await resend.domains.list()).error?.message).toContain("/v1");
    expect((await resend.apiKeys.list()).error?.message).toContain("/v1");
  });

  it("answers every Resend resource that way, and other unknown paths with the JSON 404", async () => {
    for (const resource of [
      "emails",
      "domains",
      "webhooks",
      "suppressions",
      "audiences",
      "contacts",
      "broadcasts",
      "api-keys",
    ]) {
      const res = await fetch(`${app.url}/${resource}/x`, { method: "POST" });
      expect(res.status, resource).toBe(404);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body, resource).toMatchObject({ statusCode: 404, name: "not_found" });
      expect(body.message, resource).toContain("/v1");
    }
    const other = await fetch(`${app.url}/flags`);
    expect(await other.json()).toEqual({ error: { code: "not_found", message: "No route for /flags" } });
  });

  it("does the same through the fetch handler mounted under a base path", async () => {
    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    const handle = toFetchHandler(fp, { basePath: "/api" });
    try {
      const res = await handle(new Request("http://127.0.0.1:8787/api/emails", { method: "POST", body: "{}" }));
      const body = (await res.json()) as { message: string };
      expect(body.message).toContain("http://127.0.0.1:8787/api/v1");
      const home = await handle(new Request("http://127.0.0.1:8787/api/"));
      expect(await home.json()).toEqual({ name: "flagpost", api: "/api/v1", dashboard: "/api/dashboard" });
    } finally {
      await fp.close();
    }
  });
});

describe("GET /", () => {
  it("gives a browser a page that links to the dashboard", async () => {
    const res = await fetch(`${app.url}/`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain('<a href="/dashboard">');
  });

  it("gives any other client JSON naming the API and the dashboard", async () => {
    const res = await fetch(`${app.url}/`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "flagpost", api: "/v1", dashboard: "/dashboard" });
  });

  it("names no dashboard when it is turned off", async () => {
    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    const running = await listen(createServer(toNodeHandler(fp, { dashboard: false })));
    try {
      expect(await (await fetch(`${running.url}/`)).json()).toEqual({ name: "flagpost", api: "/v1" });
    } finally {
      await running.close();
      await fp.close();
    }
  });
});
