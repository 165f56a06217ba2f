import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { allRoutes } from "../../adapters/http/routes/index.js";
import { createFlagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";

const API_MD = new URL("../../docs/api.md", import.meta.url);

/** The rows of docs/api.md's route table as "METHOD /path scope", with {param} written :param. */
function documentedRoutes(markdown: string): string[] {
  const rows = [...markdown.matchAll(/^\| (GET|POST|PATCH|PUT|DELETE) \| `([^`]+)` \| `([^`]+)` \|/gm)];
  return rows.map(([, method, path, scope]) => `${method} ${path!.replace(/\{(\w+)\}/g, ":$1")} ${scope}`);
}

describe("docs/api.md", () => {
  it("lists every served route with its method and scope, and no route that is not served", async () => {
    const fp = createFlagpost({ storage: memoryStorage() });
    const served = allRoutes(fp).map((r) => `${r.method} ${r.path} ${r.scope}`);
    const documented = documentedRoutes(await readFile(API_MD, "utf8"));
    expect(documented.length).toBeGreaterThan(10);
    expect([...documented].sort()).toEqual([...served].sort());
    await fp.close();
  });

  it("names every error code of src/errors.ts", async () => {
    const { ERROR_CODES } = await import("../../src/errors.js");
    const markdown = await readFile(API_MD, "utf8");
    const missing = Object.keys(ERROR_CODES).filter((code) => !markdown.includes(`| \`${code}\` |`));
    expect(missing).toEqual([]);
  });

  it("is the only wire reference cited: no file points at an API.md outside the repository", async () => {
    const { execFile } = await import("node:child_process");
    const { promisify } = await import("node:util");
    const root = new URL("../..", import.meta.url).pathname;
    const { stdout } = await promisify(execFile)("git", ["grep", "-n", "-I", "API\\.md", "--", ":!node_modules"], {
      cwd: root,
    }).catch((error: { code?: number; stdout?: string }) =>
      error.code === 1 ? { stdout: "" } : Promise.reject(error),
    );
    const stray = stdout
      .split("\n")
      .filter((line) => /(^|[^/a-z])API\.md/.test(line) && !line.startsWith("test/docs/api-reference.test.ts"));
    expect(stray).toEqual([]);
  });
});
