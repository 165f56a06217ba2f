import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { tsBlocks } from "../support/markdown.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const OUT = join(ROOT, "test", ".snippets"); // inside the repo, so tsconfig's "flagpost" paths apply
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

afterAll(async () => rm(OUT, { recursive: true, force: true }));

describe("README snippets", () => {
  it("type-check as written", async () => {
    const blocks = tsBlocks(await readFile(join(ROOT, "README.md"), "utf8"));
    expect(blocks.length).toBeGreaterThan(0);
    await rm(OUT, { recursive: true, force: true });
    await mkdir(OUT, { recursive: true });
    const files = await Promise.all(
      blocks.map(async (code, i) => {
        const file = join(OUT, `readme-${i + 1}.ts`);
        await writeFile(file, code.includes("import ") || code.includes("export ") ? code : `${code}\nexport {};\n`);
        return file;
      }),
    );
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
    expect(result, `README snippets do not compile (files ${files.length}):\n${result}`).toBe("");
  }, 180_000); // tsc over the snippets and the sources they import: ~10 s idle, far more on a busy machine
});
