import { readdirSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DASHBOARD_FILES } from "../../adapters/http/dashboard/files.js";
import { createHandler, toNodeHandler } from "../../adapters/http/index.js";
import { ATTRIBUTE_OPERATORS } from "../../src/flags/evaluation/index.js";
import { createFlagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { listenUnderApi, startApp, type TestApp } from "../support/servers.js";

const PUBLIC = new URL("../../adapters/http/dashboard/public/", import.meta.url);

/** A raw request: fetch would normalise "..", which is exactly what these tests must send. */
function raw(url: string, path: string, method = "GET", headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = httpRequest(`${url}/`, { method, path, headers }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end();
    },
  );
}

describe("dashboard: static files", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => app.close());

  it("redirects /dashboard to /dashboard/ with a relative Location, so any mount prefix works", async () => {
    const res = await fetch(`${app.url}/dashboard`, { redirect: "manual" });
    expect(res.status).toBe(308);
    expect(res.headers.get("location")).toBe("dashboard/");
  });

  it("serves the page without an API key, with strict security headers", async () => {
    const res = await fetch(`${app.url}/dashboard/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("etag")).toMatch(/^"[\w-]+"$/);
    expect(res.headers.get("set-cookie")).toBeNull();
    const html = await res.text();
    expect(html).toContain('<meta name="flagpost-api-base" content="../v1">');
    expect(html).toContain('<meta name="flagpost-key-pattern" content="^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$">');
  });

  it("serves every listed file with its media type and nothing else from the folder", async () => {
    expect(readdirSync(PUBLIC).sort()).toEqual(Object.keys(DASHBOARD_FILES).sort());
    for (const [name, type] of Object.entries(DASHBOARD_FILES)) {
      const res = await fetch(`${app.url}/dashboard/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get("content-type"), name).toBe(type);
      expect(res.headers.get("content-security-policy"), name).toContain("default-src 'self'");
      const body = await res.text();
      if (name !== "index.html") expect(body, name).toBe(readFileSync(new URL(name, PUBLIC), "utf8"));
    }
  });

  it("has no inline script or style for the CSP to refuse, and never parses data as HTML", () => {
    const html = readFileSync(new URL("index.html", PUBLIC), "utf8");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(html).not.toMatch(/<style/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    for (const name of Object.keys(DASHBOARD_FILES).filter((n) => n.endsWith(".js"))) {
      const js = readFileSync(new URL(name, PUBLIC), "utf8");
      expect(js, name).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/);
      expect(js, name).not.toMatch(/console\.\w+\(|localStorage|document\.cookie/);
    }
  });

  it("answers HEAD with the headers only and revalidates with the ETag", async () => {
    const get = await fetch(`${app.url}/dashboard/app.js`);
    const etag = get.headers.get("etag")!;
    const head = await raw(app.url, "/dashboard/app.js", "HEAD");
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(head.headers["content-length"]).toBe(String(Buffer.byteLength(await get.text())));
    expect(head.headers.etag).toBe(etag);
    const again = await fetch(`${app.url}/dashboard/app.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });

  it("allows GET and HEAD only", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const res = await raw(app.url, "/dashboard/", method);
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe("GET, HEAD");
    }
  });

  it("reaches no file outside the list, however the path is spelled", async () => {
    const attempts = [
      "/dashboard/../package.json",
      "/dashboard/..%2f..%2fpackage.json",
      "/dashboard/%2e%2e/%2e%2e/package.json",
      "/dashboard/serve.ts",
      "/dashboard/files.ts",
      "/dashboard/public/app.js",
      "/dashboard//app.js",
      "/dashboard/app.js/",
      "/dashboard/APP.JS",
      "/dashboard/app.js%00.html",
      "/dashboard/constructor",
      "/dashboard/__proto__",
    ];
    for (const path of attempts) {
      const res = await raw(app.url, path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain("flagpost");
    }
  });

  it("leaves /v1 as it was: a key is still required there", async () => {
    expect((await fetch(`${app.url}/v1/flags`)).status).toBe(401);
    expect((await app.call("GET", "/v1/flags")).status).toBe(200);
  });
});

describe("dashboard: options", () => {
  it("is off with dashboard: false (404 through toNodeHandler, undefined from createHandler)", async () => {
    const app = await startApp({ http: { dashboard: false } });
    try {
      for (const path of ["/dashboard", "/dashboard/", "/dashboard/app.js"]) {
        expect((await fetch(`${app.url}${path}`, { redirect: "manual" })).status, path).toBe(404);
      }
      expect((await app.call("GET", "/v1/flags")).status).toBe(200);
      const handle = createHandler(app.fp, { dashboard: false });
      expect(
        await handle({
          method: "GET",
          path: "/dashboard/",
          query: new URLSearchParams(),
          headers: {},
          body: { kind: "none" },
        }),
      ).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it("moves with dashboard.path and finds /v1 relative to it", async () => {
    const app = await startApp({ http: { dashboard: { path: "/admin/flags/" } } });
    try {
      expect((await fetch(`${app.url}/dashboard/`)).status).toBe(404);
      const redirect = await fetch(`${app.url}/admin/flags`, { redirect: "manual" });
      expect(redirect.headers.get("location")).toBe("flags/");
      const page = await fetch(`${app.url}/admin/flags/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<meta name="flagpost-api-base" content="../../v1">');
    } finally {
      await app.close();
    }
  });

  it("refuses a path that is malformed or would shadow /v1", async () => {
    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    for (const path of ["dashboard", "/", "", "/a/../b", "/a//b", "/v1", "/v1/dashboard", "/dash board", "/a?b"]) {
      expect(() => createHandler(fp, { dashboard: { path } }), path).toThrow(/dashboard\.path/);
    }
    await fp.close();
  });

  it("works under a mount prefix: the app strips /api and the page still finds its files", async () => {
    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    await fp.ready();
    const handle = toNodeHandler(fp);
    const running = await listenUnderApi(handle);
    try {
      const redirect = await fetch(`${running.url}/api/dashboard`, { redirect: "manual" });
      expect(new URL(redirect.headers.get("location")!, `${running.url}/api/dashboard`).pathname).toBe(
        "/api/dashboard/",
      );
      expect((await fetch(`${running.url}/api/dashboard/app.js`)).status).toBe(200);
    } finally {
      await running.close();
      await fp.close();
    }
  });

  it("offers every attribute operator the server knows", async () => {
    const { OPERATORS } = (await import(new URL("operators.js", PUBLIC).href)) as { OPERATORS: { op: string }[] };
    expect(OPERATORS.map((o) => o.op)).toEqual([...ATTRIBUTE_OPERATORS]);
  });
});
