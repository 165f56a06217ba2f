import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";

/**
 * Every list route reads `limit` the same way: decimal digits only (Number() would read "0x10"
 * as 16 and "1e2" as 100), from 1 to the route's maximum, and says so in one sentence when it is
 * anything else — "1e309" included, which used to answer "must be a number (got a number)".
 */
describe("limit on every list route", () => {
  let app: TestApp;
  let routes: [path: string, max: number][];

  beforeAll(async () => {
    app = await startApp({
      http: { rateLimit: false },
      webhooks: { resolve: async () => [{ address: "93.184.216.34", family: 4 }], autoStart: false },
    });
    await app.fp.flags.create({ key: "limits" });
    const hook = await app.fp.webhooks.create({ endpoint: "https://hooks.example.com/in", events: ["flag.created"] });
    const email = await app.fp.emails.send({ from: "a@acme.example", to: ["b@example.org"], subject: "s", text: "t" });
    await app.fp.flags.create({ key: "limits-2" });
    const [event] = (await app.fp.webhooks.events(hook.id)).data;
    routes = [
      ["/v1/flags", 1000],
      ["/v1/flags/limits/history", 1000],
      ["/v1/flags/limits/schedules", 1000],
      ["/v1/events", 1000],
      ["/v1/emails", 100],
      ["/v1/suppressions", 100],
      ["/v1/webhooks", 100],
      [`/v1/webhooks/${hook.id}/events`, 100],
      [`/v1/webhooks/${hook.id}/events/${event!.id}/attempts`, 100],
    ];
    expect(email.id).toBeTruthy();
  });
  afterAll(() => app.close());

  it("refuses hexadecimal, exponent, signed, spaced and out-of-range limits with one message", async () => {
    for (const [path, max] of routes) {
      for (const limit of ["0x10", "1e309", "1e2", "+5", " 16", "16 ", "0", String(max + 1), "1.5", "", "ten"]) {
        const response = await app.call("GET", `${path}?limit=${encodeURIComponent(limit)}`);
        // Flagpost's own routes answer {error: {message}}, the Resend-shaped ones {message}.
        const body = (await response.json()) as { error?: { message: string }; message?: string };
        expect(response.status, `${path} limit=${limit}`).toBe(422);
        expect(body.error?.message ?? body.message, `${path} limit=${limit}`).toBe(
          `"limit" must be an integer from 1 to ${max}`,
        );
      }
    }
  });

  it("accepts decimal limits within range", async () => {
    for (const [path, max] of routes) {
      for (const limit of ["1", "016", String(max)]) {
        const response = await app.call("GET", `${path}?limit=${limit}`);
        expect(response.status, `${path} limit=${limit}`).toBe(200);
      }
    }
  });
});
