import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";

/**
 * docs/dashboard.md: every mount serves the dashboard at `/dashboard` below its prefix, next to
 * `/v1`, with no key. Run on every framework, so a mount that forgets it (Fastify routes only
 * what is registered) fails here.
 */
export function dashboardCases(start: Start): void {
  describe("dashboard", () => {
    let t: Target;
    beforeAll(async () => {
      t = await start();
    });
    afterAll(() => t.close());

    it("serves /dashboard/ and its files below the mount, and redirects /dashboard to it", async () => {
      const page = await fetch(`${t.url}/dashboard/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await page.text()).toContain('<meta name="flagpost-api-base" content="../v1">');
      const script = await fetch(`${t.url}/dashboard/app.js`);
      expect(script.status).toBe(200);
      expect(script.headers.get("content-type")).toMatch(/javascript/);
      await script.arrayBuffer();
      const bare = await fetch(`${t.url}/dashboard`, { redirect: "manual" });
      expect(bare.status).toBe(308);
      expect(bare.headers.get("location")).toMatch(/dashboard\/$/);
      await bare.arrayBuffer();
    });
  });
}
