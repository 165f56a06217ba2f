import { readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as Http from "../../adapters/http/index.js";
import type * as Core from "../../src/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import config from "../../tsup.config.js";
import { listen, type Running } from "../support/servers.js";
import { ARTIFACTS } from "./browser.js";

const PUBLIC = new URL("../../adapters/http/dashboard/public/", import.meta.url);

/**
 * Builds the package with the project's own tsup config (JS only, into test-artifacts/ so that
 * bare imports still resolve from node_modules) and serves the dashboard from the built files:
 * what `npm pack` ships is dist/, and dist/ must not need adapters/http/dashboard/public.
 */
describe("dashboard: from the package build", () => {
  const outDir = join(ARTIFACTS, `build-${process.pid}`);
  let running: Running;
  let fp: Core.Flagpost;

  beforeAll(async () => {
    if (typeof config !== "function")
      throw new Error("tsup.config.ts is expected to export a function of the CLI flags");
    const options = await config({ dts: false });
    if (Array.isArray(options)) throw new Error("tsup.config.ts is expected to build one configuration");
    // onSuccess writes the CommonJS stubs into dist/, which this build must leave alone.
    const { onSuccess: _stubs, ...js } = options;
    await build({ ...js, config: false, outDir, dts: false, sourcemap: false, silent: true, clean: true });
    const core = (await import(pathToFileURL(join(outDir, "index.js")).href)) as typeof Core;
    const http = (await import(pathToFileURL(join(outDir, "http.js")).href)) as typeof Http;
    fp = core.createFlagpost({ storage: core.memoryStorage(), logger: silentLogger });
    await fp.ready();
    running = await listen(createServer(http.toNodeHandler(fp)));
  }, 60_000);

  afterAll(async () => {
    await running?.close();
    await fp?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it("embeds the files: the built code reads nothing from disk", () => {
    // The CLI reads package.json for `--version`, beside dist/ where npm puts it; the library
    // files, which an app bundles or imports, read nothing.
    const built = readdirSync(outDir).filter((name) => name.endsWith(".js") && name !== "cli.js");
    expect(built).toContain("http.js");
    const code = built.map((name) => readFileSync(join(outDir, name), "utf8")).join("\n");
    expect(code).not.toContain("readFileSync");
    expect(code).toContain("flagpost-api-base");
  });

  it("serves the same files as the source", async () => {
    const page = await fetch(`${running.url}/dashboard/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(await page.text()).toContain('<meta name="flagpost-api-base" content="../v1">');
    for (const name of ["app.js", "dashboard.css", "rule-editor.js", "favicon.svg"]) {
      const res = await fetch(`${running.url}/dashboard/${name}`);
      expect(res.status, name).toBe(200);
      expect(await res.text(), name).toBe(readFileSync(new URL(name, PUBLIC), "utf8"));
    }
  });
});
