import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler } from "../../adapters/http/index.js";
import { Router } from "../../adapters/http/router.js";
import { allRoutes } from "../../adapters/http/routes/index.js";
import { type HttpRequest, PROVIDER_AUTH, type Route } from "../../adapters/http/types.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";

/**
 * A route's `style` is the one place an error body's shape is chosen: every answer on its
 * resource follows it, including those given before any route matched (401, 404, 405).
 * Generated from the route table, so a resource added later is covered at once.
 */
describe("error body style, from the route table", () => {
  let fp: Flagpost;
  beforeAll(async () => {
    fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    await fp.ready();
  });
  afterAll(() => fp.close());

  function request(method: string, path: string): HttpRequest {
    return { method, path, query: new URLSearchParams(), headers: {}, body: { kind: "none" } };
  }

  function shapeOf(body: string | Uint8Array | undefined): Route["style"] | "other" {
    const parsed = JSON.parse(String(body)) as Record<string, unknown>;
    if (typeof parsed.statusCode === "number" && typeof parsed.name === "string") return "resend";
    if (typeof (parsed.error as { code?: unknown } | undefined)?.code === "string") return "data";
    if (typeof parsed.errorCode === "string" && typeof parsed.errorDetails === "string") return "ofrep";
    return "other";
  }

  it("answers a request without a key, and an unknown path, in the style of the resource's routes", async () => {
    const handle = createHandler(fp, { rateLimit: false, dashboard: false });
    const routes = allRoutes(fp);
    const styles = new Set(routes.map((r) => r.style));
    expect(styles).toEqual(new Set(["resend", "data", "ofrep"]));
    for (const route of routes) {
      const path = route.path.replace(/:(\w+)/g, "x");
      const unauthenticated = await handle(request(route.method, path));
      // A provider's webhook authenticates by the provider's own signature, not an API key; one
      // whose provider is not configured (none is, here) does not exist on this server.
      const expected = route.scope === PROVIDER_AUTH ? 404 : 401;
      expect(unauthenticated?.status, `${route.method} ${path}`).toBe(expected);
      // OFREP gives a 401 no body (docs/ofrep.md): flagpost's own says which refusal it was.
      const style = route.style === "ofrep" ? "data" : route.style;
      expect(shapeOf(unauthenticated?.body), `${route.method} ${path}`).toBe(style);
    }
    expect(shapeOf((await handle(request("GET", "/v1/nothing-here")))?.body)).toBe("data");
  });

  it("refuses a route table in which one resource answers in two styles", () => {
    const handle = async () => ({ status: 200 });
    const route = (path: string, style: Route["style"]): Route => ({
      method: "GET",
      path,
      scope: "flags:read",
      style,
      body: false,
      handle,
    });
    expect(() => new Router([route("/v1/things", "data"), route("/v1/things/:id", "resend")])).toThrow(
      /GET \/v1\/things\/:id answers errors as "resend", other v1\/things routes as "data"/,
    );
    expect(new Router([route("/v1/things", "resend")]).styleFor("/v1/things/else/where")).toBe("resend");
  });
});
