import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";

// FLAGPOST_CORS_ORIGINS (corsOrigins): CORS on /ofrep/ only, preflights answered without a key (issue 27).

describe("CORS on /ofrep/", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ http: { rateLimit: false, corsOrigins: ["http://127.0.0.1:5999"] } });
  });
  afterAll(() => app.close());

  const preflight = (path: string, origin: string) =>
    fetch(app.url + path, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization" },
    });

  it("answers a preflight from an allowed origin", async () => {
    const res = await preflight("/ofrep/v1/evaluate/flags", "http://127.0.0.1:5999");
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:5999");
    expect(res.headers.get("access-control-allow-headers")).toContain("If-None-Match");
    expect(res.headers.get("vary")).toBe("Origin");
    expect(res.headers.get("access-control-max-age")).toBe("600");
  });

  it("gives another origin, and paths outside /ofrep/, no CORS headers", async () => {
    const other = await preflight("/ofrep/v1/evaluate/flags", "http://evil.example");
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const v1 = await preflight("/v1/flags", "http://127.0.0.1:5999");
    expect(v1.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("exposes the ETag and Retry-After on a real answer", async () => {
    const res = await fetch(app.url + "/ofrep/v1/evaluate/flags", {
      method: "POST",
      headers: {
        origin: "http://127.0.0.1:5999",
        authorization: `Bearer ${app.key}`,
        "content-type": "application/json",
      },
      body: "{}",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-expose-headers")).toBe("ETag, Retry-After");
    expect(res.headers.get("etag")).toMatch(/^"[\w-]+"$/);
  });
});
