import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { tsBlocks } from "../support/markdown.js";

// docs/clients-node.md (issue 27): each block is a whole program and type-checks as written, so
// the names it shows (getValue, getValueDetail, the provider's resolvers) cannot drift.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const OUT = join(ROOT, "test", ".clients-node-snippets"); // inside the repo, so tsconfig's "flagpost" paths apply
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

afterAll(async () => rm(OUT, { recursive: true, force: true }));

describe("docs/clients-node.md snippets", () => {
  it("type-check as written", async () => {
    const blocks = tsBlocks(await readFile(join(ROOT, "docs", "clients-node.md"), "utf8"));
    expect(blocks.length).toBe(3);
    await rm(OUT, { recursive: true, force: true });
    await mkdir(OUT, { recursive: true });
    await Promise.all(blocks.map((code, i) => writeFile(join(OUT, `block-${i + 1}.ts`), code)));
    await writeFile(
      join(OUT, "tsconfig.json"),
      JSON.stringify({ extends: "../../tsconfig.json", include: ["*.ts"], compilerOptions: { types: ["node"] } }),
    );
    const result = await promisify(execFile)(process.execPath, [TSC, "--noEmit", "-p", join(OUT, "tsconfig.json")], {
      cwd: ROOT,
    }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe("");
  }, 180_000);
});
