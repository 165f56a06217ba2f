import { execFile } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { docSetupBlock } from "./support/web-bundle.js";

// web-provider.test.ts runs the provider set-up block of docs/clients-browser.md in Chromium,
// but esbuild drops types unchecked: this checks them against the packages' own declarations,
// as a reader's bundler set-up (Vite, moduleResolution "bundler", DOM) would.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
let dir: string | undefined;

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("the set-up block of docs/clients-browser.md type-checks as written", async () => {
  dir = await mkdtemp(join(tmpdir(), "flagpost-browser-doc-"));
  await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  await writeFile(join(dir, "flags.ts"), docSetupBlock());
  const compilerOptions = {
    target: "ES2022",
    lib: ["ES2023", "DOM"],
    module: "ESNext",
    moduleResolution: "bundler",
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  };
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["flags.ts"] }));
  const result = await promisify(execFile)(process.execPath, [TSC, "-p", join(dir, "tsconfig.json")]).then(
    () => "",
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  expect(result).toBe("");
}, 120_000);
