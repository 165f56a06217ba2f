import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesToHold } from "../../adapters/http/body-budget.js";
import { startApp, type TestApp } from "../support/servers.js";

/** Issue 11, defect 6: request bodies share one byte budget; past it, 503 + Retry-After. */
describe("body budget", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ http: { bodyBudget: 64 * 1024, rateLimit: false } });
  });
  afterAll(() => app.close());

  it("refuses a body while others hold the budget, and takes it once they are done", async () => {
    // A chunked upload (no Content-Length) holds the route's whole limit (1 MiB) while it arrives.
    let finish!: () => void;
    const slow = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"event":"slow",'));
        finish = () => {
          controller.enqueue(new TextEncoder().encode('"userId":"u1"}'));
          controller.close();
        };
      },
    });
    const pending = fetch(`${app.url}/v1/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
      body: slow,
      duplex: "half",
    } as RequestInit);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the first chunk is in: its bytes are held

    const refused = await app.call("POST", "/v1/flags", { key: "while-full" });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    // The refused body is not read: the connection closes instead of draining it.
    expect(refused.headers.get("connection")).toBe("close");
    expect(await refused.json()).toMatchObject({ error: { code: "unavailable" } });
    expect((await app.call("GET", "/v1/flags")).status).toBe(200); // requests without a body are not held back

    finish();
    expect((await pending).status).toBe(202);
    expect((await app.call("POST", "/v1/flags", { key: "after" })).status).toBe(201);
  });

  it("holds the declared length, or the route's limit when none is declared", () => {
    expect(bytesToHold("1200", 1_048_576)).toBe(1200);
    expect(bytesToHold(undefined, 1_048_576)).toBe(1_048_576);
    expect(bytesToHold("99999999999", 1_048_576)).toBe(1_048_576);
    expect(bytesToHold("-5", 1_048_576)).toBe(1_048_576);
  });
});
